import { type Absence, META } from '../../link/protocol.js';
import type { Policy } from '../../policy/model.js';
import { hostsForLane, parseHostKey } from '../../routing/route.js';
import { CALLER_META } from '../../link/config.js';
import { LIST_FIELDS, type ListMethod } from '../../link/lists.js';
import { RpcFailure } from '../../rpc/jsonrpc.js';
import type { Era } from '../../upstream/conn.js';
import type { RawResult } from '../../rpc/raw.js';
import { createHash } from 'node:crypto';
import { lanesWithServer } from '../../policy/queries.js';
import { type CatalogGuard, type LaneVerdict, NOTHING_WITHHELD, type Withheld, withholdFrom } from './catalog-guard.js';

export interface Listing {
  items: Record<string, unknown>[];
  absent: Absence[];
  /** The servers the lane's whole catalog withholds (already left out of items, listed in absent). */
  withheld?: LaneVerdict;
}

/** One host's part of a listing, with what it was made of (its host, list field and text's hash). */
type Part = Listing & { id?: string };

type HostRequest = (key: string, method: string, params: Record<string, unknown>, timeoutMs: number) => Promise<RawResult>;

const LIST_TIMEOUT_MS = 30_000;
/** How long a caller that accepts it may reuse a listing with an absent upstream. */
export const RECENT_ABSENT_MS = 1_000;

/**
 * Each lane's catalog: the union of what its hosts list for it, and nothing else. A complete
 * listing is cached per lane until a host reports a change for that lane; a listing with an
 * absent upstream is listed afresh every time, unless the caller accepts a recent one.
 */
export class Catalog {
  /** lane → `${era} ${method}` → listing. */
  private readonly cache = new Map<string, Map<string, Listing>>();
  /** lane → `${era} ${method}` → a listing with an absent upstream, and when it was made. */
  private readonly incomplete = new Map<string, Map<string, { listing: Listing; at: number }>>();
  /**
   * A host's answers by content: lanes with the same servers get the same text, and share one
   * parsed copy (100 lanes of 1,000 tools hold 1,000 tool objects, not 100,000). Emptied whenever
   * a listing changes, so it holds only what current listings were made of.
   */
  private readonly answers = new Map<string, Listing>();
  /** Each lane's verdict on its last listing with no upstream absent. */
  private readonly lastWhole = new Map<string, { basis: string; verdict: LaneVerdict }>();

  constructor(
    private readonly policy: () => Policy,
    private readonly request: HostRequest,
    /** The front's part of the guard (none: nothing is judged across hosts). */
    private readonly guard?: CatalogGuard,
    /** Told each lane's verdict whenever its tools listing is made afresh. */
    private readonly onVerdict?: (lane: string, verdict: LaneVerdict) => void,
  ) {}

  /**
   * `reuseAbsentMs`: a listing with an absent upstream made that recently will do (the per-call
   * header check uses it, so a burst of calls during an outage does not re-list every host).
   */
  async list(lane: string, method: ListMethod, era: Era = 'legacy', reuseAbsentMs = 0): Promise<Listing> {
    const slot = `${era} ${method}`;
    const hit = this.cache.get(lane)?.get(slot);
    if (hit) return hit;
    const recent = this.incomplete.get(lane)?.get(slot);
    if (recent && Date.now() - recent.at < reuseAbsentMs) return recent.listing;
    const field = LIST_FIELDS[method];
    const policy = this.policy();
    const hosts = hostsForLane(policy, lane);
    const parts = await Promise.all(
      [...hosts].map(async ([key, { servers }]): Promise<Part> => {
        try {
          const raw = await this.request(key, method, { _meta: { [CALLER_META]: { lane, era } } }, LIST_TIMEOUT_MS);
          return this.parsed(key, field, raw);
        } catch (e) {
          const reason = e instanceof RpcFailure ? e.rpc.message : 'host unavailable';
          return { items: [], absent: servers.map((server): Absence => ({ server, code: 'unavailable', reason })) };
        }
      }),
    );
    const whole: Listing = { items: parts.flatMap((p) => p.items), absent: parts.flatMap((p) => p.absent) };
    const listing = hosts.size > 1 && this.guard ? await this.judged(lane, method, era, whole, parts) : whole;
    if (whole.absent.length === 0) {
      const perLane = this.cache.get(lane) ?? new Map<string, Listing>();
      perLane.set(slot, listing);
      this.cache.set(lane, perLane);
      this.incomplete.get(lane)?.delete(slot);
    } else {
      const perLane = this.incomplete.get(lane) ?? new Map<string, { listing: Listing; at: number }>();
      perLane.set(slot, { listing, at: Date.now() });
      this.incomplete.set(lane, perLane);
    }
    return listing;
  }

  /**
   * The listing with what the lane's whole catalog withholds taken out: judged on the tools
   * listing (by its content), applied to every list method of the lane.
   */
  private async judged(lane: string, method: ListMethod, era: Era, whole: Listing, parts: Part[]): Promise<Listing> {
    let verdict: LaneVerdict;
    if (method === 'tools/list') {
      const content = parts.map((p) => p.id ?? `absent ${p.absent.map((a) => a.server).join(',')}`).join('\n');
      const now = (this.guard as CatalogGuard).judge(lane, whole.items, content);
      // A listing with an absent upstream shows only part of the catalog: what the last whole one
      // withheld stays withheld (else crashing one server would lift the verdict on another).
      const partial = parts.some((p) => p.absent.length > 0);
      const basis = (this.guard as CatalogGuard).basis();
      if (!partial) this.lastWhole.set(lane, { basis, verdict: now });
      const last = partial ? this.lastWhole.get(lane) : undefined;
      verdict = last && last.basis === basis && last.verdict.size > 0 ? new Map([...last.verdict, ...now]) : now;
      this.onVerdict?.(lane, verdict);
    } else verdict = (await this.list(lane, 'tools/list', era, RECENT_ABSENT_MS)).withheld ?? NOTHING_WITHHELD;
    return { ...withholdFrom(this.policy(), lane, whole, verdict), withheld: verdict };
  }

  /**
   * Why the lane's whole catalog withholds `server` from it, if it does. Only a lane whose servers
   * span several hosts can have such a verdict; for one, its tools listing is read (cached, or a
   * recent one with an absent upstream), so a call pays a lookup, not a listing.
   */
  async withheldFor(lane: string, server: string, era: Era = 'legacy'): Promise<Withheld | undefined> {
    if (!this.guard || hostsForLane(this.policy(), lane).size < 2) return undefined;
    return (await this.list(lane, 'tools/list', era, RECENT_ABSENT_MS)).withheld?.get(server);
  }

  private parsed(key: string, field: string, raw: RawResult): Part {
    const hash = createHash('sha256');
    for (const p of raw.parts) hash.update(p);
    const id = `${key} ${field} ${hash.digest('base64')}`;
    const known = this.answers.get(id);
    if (known) return { ...known, id };
    const r = raw.parsed();
    const meta = r._meta as { [META.absent]?: Absence[] } | undefined;
    const part = { items: (r[field] as Record<string, unknown>[] | undefined) ?? [], absent: meta?.[META.absent] ?? [] };
    this.answers.set(id, part);
    return { ...part, id };
  }

  /** Forget cached listings of these lanes (of one list method, or all). */
  invalidate(lanes: Iterable<string>, method?: ListMethod): void {
    this.answers.clear();
    for (const lane of lanes) {
      this.incomplete.delete(lane);
      // Every list method of a lane judged across hosts follows its tools' verdict.
      if (!method || (method === 'tools/list' && this.guard && hostsForLane(this.policy(), lane).size > 1)) this.cache.delete(lane);
      else for (const era of ['legacy', 'modern'] as const) this.cache.get(lane)?.delete(`${era} ${method}`);
    }
  }

  clear(): void {
    this.guard?.clear();
    this.answers.clear();
    this.cache.clear();
    this.incomplete.clear();
  }
}

/** The lanes affected by a change of `server` reported by host `hostKey`. Pure. */
export const lanesAffected = (policy: Policy, hostKey: string, server: string, lanes: string[] | 'all'): string[] => {
  if (lanes !== 'all') return lanes;
  const { lane } = parseHostKey(hostKey);
  if (lane !== undefined) return [lane];
  return lanesWithServer(policy, server);
};
