import type { GuardReport } from '../link/reports.js';
import { hashOfItem } from '../guard/trust.js';
import { itemHash } from '../guard/hash.js';
import { laneWithheld, type Refusal, semanticRemedy } from '../guard/refusal.js';
import type { Finding, Surface } from '../guard/scanner.js';

export type Drift = NonNullable<GuardReport['drift']>;

/** What one vet of a surface found, before the verdict is recorded. */
export interface Seen {
  server: string;
  surface: Surface;
  hash: string;
  /** Findings no reviewed override covers: any one refuses. */
  open: Finding[];
  trusted: Finding[];
  itemHashes: Record<string, string>;
  /** The server's state before this vet. */
  prev: { status: 'admitted' | 'refused'; pinned?: string } | undefined;
  drift: Drift | undefined;
  profile: string | undefined;
}

/** The hash of every item with a finding and of every tool, so an override names exactly what it covers. */
export const itemHashesOf = (surface: Surface, all: Finding[]): Record<string, string> => {
  const itemHashes: Record<string, string> = {};
  for (const f of all) {
    const h = hashOfItem(surface, f.kind, f.item);
    if (h) itemHashes[`${f.kind}:${f.item}`] = h;
  }
  for (const t of surface.tools ?? []) itemHashes[`tool:${String(t.name)}`] = itemHash(t);
  return itemHashes;
};

/** A server refused for every lane of the host: at admission, or withdrawn at once on drift. */
export const serverRefusal = (server: string, lanes: string[], open: Finding[], drift: boolean): Refusal => {
  const first = open[0] as Finding;
  return {
    upstream: server,
    lanes,
    layer: 'semantic',
    tool: first.kind === 'tool' ? first.item : `${first.kind} ${first.item}`,
    item: first.item,
    finding: `${first.finding}${open.length > 1 ? ` (+${open.length - 1} more finding${open.length > 2 ? 's' : ''})` : ''}`,
    matched: first.matched,
    action: drift
      ? 'upstream withdrawn from every lane at once; lanes served without it'
      : 'upstream not registered; lanes served without it',
    remedy: semanticRemedy(server, first.item),
    when: drift ? 'drift' : 'admission',
  };
};

/** A surface shown by one lane's own child: refused for that lane alone. */
export const laneRefusal = (server: string, lane: string, open: Finding[]): Refusal =>
  laneWithheld(
    server,
    lane,
    open,
    `upstream withheld from lane "${lane}", whose own child showed this; every other child is vetted as it changes`,
    'drift',
  );
