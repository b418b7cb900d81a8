import { catalogFindings, catalogRefusal, type CatalogServer } from '../../guard/catalog-view.js';
import type { Finding } from '../../guard/findings.js';
import type { Refusal } from '../../guard/refusal.js';
import type { TrustOverride } from '../../guard/trust.js';
import type { Absence } from '../../link/protocol.js';
import { escapeUntrusted } from '../../log/escape.js';
import type { Policy } from '../../policy/model.js';
import { route } from '../../routing/route.js';

/** A server withheld from one lane by that lane's whole catalog. */
export interface Withheld {
  findings: Finding[];
  refusal: Refusal;
}

/** server → why it is withheld from the lane (servers not withheld are not in it). */
export type LaneVerdict = ReadonlyMap<string, Withheld>;

export const NOTHING_WITHHELD: LaneVerdict = new Map();

/** What routing reads of the policy. */
type RoutingView = Pick<Policy, 'domains' | 'servers' | 'lanes'>;

/** Enough for every lane of a large gateway several times over; past it the memo starts over. */
const MEMO_MAX = 4_096;

/** The lane's tools, grouped by the server and host that serve them, under their own names. Pure. */
export const catalogServers = (policy: RoutingView, lane: string, tools: readonly Record<string, unknown>[]): CatalogServer[] => {
  const by = new Map<string, CatalogServer>();
  for (const t of tools) {
    const r = route(policy, lane, String(t.name ?? ''));
    if (!r.ok) continue;
    const s = by.get(r.server) ?? { server: r.server, host: r.hostKey, prefix: policy.servers[r.server]?.prefix ?? '', tools: [] };
    s.tools.push({ ...t, name: r.rest });
    by.set(r.server, s);
  }
  return [...by.values()];
};

/** How a withheld server shows in the lane's listing and lanegate_status: as the host shows one it refused. */
export const absenceOfWithheld = (server: string, w: Withheld): Absence => ({
  server,
  code: 'refused',
  item: w.refusal.item ?? w.refusal.tool,
  reason: `refused by the guard (layer ${w.refusal.layer}, lane catalog, ${escapeUntrusted(w.refusal.tool, 120)}: ${w.refusal.finding}); see: ${w.refusal.remedy.join('; ')}`,
});

/** What a listed item is routed by: a resource's (or template's) URI, else its name. */
const nameOf = (item: Record<string, unknown>): { value: string; kind: 'name' | 'uri' } => {
  const uri = item.uri ?? item.uriTemplate;
  return typeof uri === 'string' ? { value: uri, kind: 'uri' } : { value: String(item.name ?? ''), kind: 'name' };
};

/** The items of servers not withheld, and an absence for each one withheld. Pure. */
export const withholdFrom = <L extends { items: Record<string, unknown>[]; absent: Absence[] }>(
  policy: RoutingView,
  lane: string,
  listing: L,
  verdict: LaneVerdict,
): L => {
  if (verdict.size === 0) return listing;
  const items = listing.items.filter((i) => {
    const n = nameOf(i);
    const r = route(policy, lane, n.value, n.kind);
    return !(r.ok && verdict.has(r.server));
  });
  const absent = [...listing.absent, ...[...verdict].map(([server, w]) => absenceOfWithheld(server, w))];
  return { ...listing, items, absent };
};

/**
 * The front's part of the guard: each lane's tools judged as one catalog across its hosts (see
 * guard/catalog-view.ts). Memoised by the listing's content (the hosts' answers' hashes, which
 * the catalog computes anyway) and the operator's overrides: the same catalog is judged once, and
 * a cached listing costs nothing at all.
 */
export class CatalogGuard {
  private readonly memo = new Map<string, ReadonlyMap<string, Finding[]>>();

  constructor(
    private readonly policy: () => Policy,
    /** The operator's overrides and a stamp that changes with them. */
    private readonly overrides: () => { stamp: string; list: readonly TrustOverride[] },
  ) {}

  /** The lane's verdict from its tools listing; `contentKey` names what the listing was made of. */
  judge(lane: string, tools: readonly Record<string, unknown>[], contentKey: string): LaneVerdict {
    const policy = this.policy();
    const trust = this.overrides();
    const key = `${lane}\u0000${contentKey}\u0000${trust.stamp}`;
    let found = this.memo.get(key);
    if (!found) {
      found = catalogFindings(catalogServers(policy, lane, tools), trust.list);
      if (this.memo.size >= MEMO_MAX) this.memo.clear();
      this.memo.set(key, found);
    }
    if (found.size === 0) return NOTHING_WITHHELD;
    return new Map([...found].map(([server, findings]) => [server, { findings, refusal: catalogRefusal(server, lane, findings) }]));
  }

  /** What the verdicts were judged under: the operator's overrides and the policy (a verdict kept from a whole listing holds only while both are the same). */
  basis(): string {
    return `${this.overrides().stamp}\u0000${String(policyStamp(this.policy()))}`;
  }

  clear(): void {
    this.memo.clear();
  }
}

const stamps = new WeakMap<object, number>();
let nextStamp = 1;
/** A number per policy object (a reload makes a new one). */
const policyStamp = (p: Policy): number => {
  let n = stamps.get(p);
  if (n === undefined) {
    n = nextStamp++;
    stamps.set(p, n);
  }
  return n;
};
