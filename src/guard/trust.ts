import type { Finding, Surface } from './scanner.js';
import { itemHash } from './hash.js';
import { sha256 } from './hash.js';

/** An operator's reviewed override of layer-two findings for ONE item, pinned to its exact hash. */
export interface TrustOverride {
  server: string;
  kind: Finding['kind'];
  item: string;
  hash: string;
  reviewedBy: string;
  note?: string;
  at: string;
}

/** The hash of the item a finding is about, in this surface (undefined if absent). */
export const hashOfItem = (s: Surface, kind: Finding['kind'], item: string): string | undefined => {
  if (kind === 'instructions') return s.instructions === undefined ? undefined : sha256(s.instructions);
  const list = kind === 'tool' ? s.tools : kind === 'prompt' ? s.prompts : kind === 'resource' ? s.resources : s.resourceTemplates;
  const found = (list ?? []).find(
    (i) =>
      String(i.name ?? i.uri ?? i.uriTemplate ?? '') === item ||
      (kind !== 'tool' && kind !== 'prompt' && (i.uri === item || i.uriTemplate === item)),
  );
  return found ? itemHash(found) : undefined;
};

/**
 * Findings not covered by an override. An override covers a finding only if it names this
 * server and item AND its hash equals the item's current hash: any change to the item (a
 * rug pull) re-opens every finding on it. Pure.
 */
export const uncovered = (server: string, s: Surface, findings: Finding[], overrides: readonly TrustOverride[]): Finding[] =>
  findings.filter((f) => {
    const h = hashOfItem(s, f.kind, f.item);
    return !overrides.some((o) => o.server === server && o.kind === f.kind && o.item === f.item && h !== undefined && o.hash === h);
  });
