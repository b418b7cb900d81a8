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

/** `{lane}` expanded for one lane; as written when there is no lane (a shared launch or domain). */
export const expandLane = (s: string, lane: string | undefined): string => (lane ? s.replaceAll('{lane}', lane) : s);

/** What `s` names for each of these lanes: one value per lane if it holds `{lane}`, else itself. */
export const expandForLanes = (s: string, lanes: readonly string[]): string[] =>
  hasLanePlaceholder(s) ? lanes.map((l) => expandLane(s, l)) : [s];

export const expandPlaceholders = (s: string, v: PlaceholderValues): string =>
  s.replace(TOKEN, (whole, key: string) => {
    if (key === 'lane') return v.lane ?? whole;
    return v[key as 'policyDir' | 'stateDir' | 'node'];
  });
