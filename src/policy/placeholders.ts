/**
 * Placeholders a policy may use in paths, args and env values. Expansion is pure: the caller
 * supplies the values. `{lane}` is expanded only at launch, for one lane; its presence makes a
 * launch (or a trust domain's secret file) per-lane, which is itself a placement fact.
 */
export interface PlaceholderValues {
  policyDir: string;
  stateDir: string;
  node: string;
  lane?: string;
}

const TOKEN = /\{(policyDir|stateDir|node|lane)\}/g;

export const hasLanePlaceholder = (s: string): boolean => s.includes('{lane}');

export const expandPlaceholders = (s: string, v: PlaceholderValues): string =>
  s.replace(TOKEN, (whole, key: string) => {
    if (key === 'lane') return v.lane ?? whole;
    return v[key as 'policyDir' | 'stateDir' | 'node'];
  });
