import { CallStreams } from '../transport/call-streams.js';
import type { CancellableCall, RequestId } from './call-context.js';
import { ClientRequests } from './client-requests.js';
import { Mrtr, REQUEST_STATE_TTL_MS } from './mrtr.js';

/** How long a session's cancellation of an id it has no call with yet is kept: a body may take 30 s to arrive. */
export const EARLY_CANCEL_MS = 30_000;
/** How many such cancellations a session may have kept at once. */
const EARLY_PER_HOLDER = 16;
/**
 * Only an id this short (a number, or a string up to 128 characters) is kept: a lane's own ids are
 * short, and a kept 4 MiB id would be memory a lane holds for 30 s (attack round 15: 160 cancels
 * with 1 MB ids grew the front by 150 MB).
 */
const EARLY_ID_MAX_CHARS = 128;

const keepable = (id: RequestId): boolean => typeof id === 'number' || (typeof id === 'string' && id.length <= EARLY_ID_MAX_CHARS);

/**
 * What one cancellation reaches. A request: the lane's call with that id under that holder (a
 * session), or for a 2026-07-28 request (no holder) the lane's one modern call with that id. A
 * holder: everything a session has open. A lane: everything of the lane.
 */
export type CancelScope =
  | { readonly of: 'request'; readonly lane: string; readonly holder: string | undefined; readonly id: RequestId }
  | { readonly of: 'holder'; readonly lane: string; readonly holder: string }
  | { readonly of: 'lane'; readonly lane: string };

/**
 * The front's one correlation table for its hop (lane <-> front): the calls in flight, the call
 * streams their notifications find, the requests an upstream put to a lane's client that wait for
 * an answer, and the 2026-07-28 calls parked for the lane's retry. Each is keyed by typed values
 * (lane, holder, request id, progress token, gateway-made ids), never by strings joined together,
 * and all of them are let go of through one path: `cancel`.
 */
export class Correlation {
  /** Notifications of a call in flight find its response here (by lane and minted progress token). */
  readonly streams = new CallStreams();
  /** Requests of a lane's client, waiting for its answer (by gateway-made id). */
  readonly clientRequests = new ClientRequests();
  /** 2026-07-28 calls parked for the lane's retry with inputResponses (by the id sealed in requestState). */
  readonly mrtr: Mrtr;
  /**
   * Calls in flight: lane, then the lane's request id, then the calls using that id at once (two
   * holders of a lane may). The id is the lane's JSON value as parsed: 1 and "1" stay apart.
   */
  private readonly inflight = new Map<string, Map<RequestId, CancellableCall[]>>();
  /**
   * Handshake-era cancellations that named an id no call of their session had yet: lane, session,
   * id, until when. A session's request whose large body is still being read is not tracked yet,
   * and its cancellation, sent a moment after the body, found nothing (attack round 14: 5 of 12
   * such cancels were dropped). A session never uses an id twice (the spec), so its call arriving
   * later is the one the lane meant: it is cancelled as it starts.
   */
  private readonly early = new Map<string, Map<string, Map<RequestId, number>>>();

  constructor(
    requestStateTtlMs = REQUEST_STATE_TTL_MS,
    private readonly earlyCancelMs = EARLY_CANCEL_MS,
  ) {
    this.mrtr = new Mrtr(requestStateTtlMs);
  }

  /** A call starts: the lane may cancel it until `release` (at once, if its session already did). */
  track(call: CancellableCall): void {
    if (call.holder !== undefined && this.takeEarly(call.lane, call.holder, call.id)) call.abort.abort();
    let ids = this.inflight.get(call.lane);
    if (!ids) {
      ids = new Map();
      this.inflight.set(call.lane, ids);
    }
    const same = ids.get(call.id);
    if (same) same.push(call);
    else ids.set(call.id, [call]);
  }

  /** The call ended (answered, or its answer is no longer this module's concern). */
  release(call: CancellableCall): void {
    const ids = this.inflight.get(call.lane);
    const same = ids?.get(call.id);
    if (!ids || !same) return;
    const i = same.indexOf(call);
    if (i >= 0) same.splice(i, 1);
    if (same.length === 0) ids.delete(call.id);
  }

  /** Whether a call of this holder (a handshake-era session) with this id is in flight. */
  inUse(lane: string, holder: string, id: RequestId): boolean {
    return (
      this.inflight
        .get(lane)
        ?.get(id)
        ?.some((c) => c.holder === holder) ?? false
    );
  }

  /** How many calls of the lane are in flight (for tests and gauges). */
  inFlight(lane: string): number {
    let n = 0;
    for (const same of this.inflight.get(lane)?.values() ?? []) n += same.length;
    return n;
  }

  /**
   * The one cancellation path. Aborts the calls in scope (their upstream work is cancelled through
   * their signal); a holder's or lane's end also fails the client requests only it could answer,
   * and a lane's end drops its parked calls (their upstreams hear that no answer comes). Returns
   * how many calls were aborted.
   */
  cancel(scope: CancelScope): number {
    const calls = this.callsIn(scope);
    for (const call of calls) call.abort.abort();
    if (scope.of === 'request' && calls.length === 0 && scope.holder !== undefined && keepable(scope.id))
      this.noteEarly(scope.lane, scope.holder, scope.id);
    if (scope.of === 'holder') {
      this.clientRequests.dropHolder(scope.lane, scope.holder);
      this.early.get(scope.lane)?.delete(scope.holder);
    }
    if (scope.of === 'lane') {
      this.clientRequests.dropLane(scope.lane);
      this.mrtr.dropLane(scope.lane);
      this.early.delete(scope.lane);
    }
    return calls.length;
  }

  /** Remembers a session's cancellation of an id it has no call with yet (at most EARLY_PER_HOLDER, the oldest let go). */
  private noteEarly(lane: string, holder: string, id: RequestId): void {
    let holders = this.early.get(lane);
    if (!holders) {
      holders = new Map();
      this.early.set(lane, holders);
    }
    let ids = holders.get(holder);
    if (!ids) {
      ids = new Map();
      holders.set(holder, ids);
    }
    const now = Date.now();
    for (const [k, until] of ids) if (until <= now) ids.delete(k);
    if (ids.size >= EARLY_PER_HOLDER) ids.delete(ids.keys().next().value as RequestId);
    ids.set(id, now + this.earlyCancelMs);
  }

  private takeEarly(lane: string, holder: string, id: RequestId): boolean {
    const ids = this.early.get(lane)?.get(holder);
    const until = ids?.get(id);
    if (!ids || until === undefined) return false;
    ids.delete(id);
    if (ids.size === 0) this.early.get(lane)?.delete(holder);
    return until > Date.now();
  }

  private callsIn(scope: CancelScope): CancellableCall[] {
    const ids = this.inflight.get(scope.lane);
    if (!ids) return [];
    if (scope.of === 'request') {
      const same = ids.get(scope.id) ?? [];
      if (scope.holder !== undefined) return same.filter((c) => c.holder === scope.holder);
      // 2026-07-28: the cancel names an id, not its request. It cancels the lane's one modern call
      // with that id; several at once are ambiguous, and none is cancelled rather than the wrong one.
      const modern = same.filter((c) => c.holder === undefined);
      return modern.length === 1 ? modern : [];
    }
    const all = [...ids.values()].flat();
    return scope.of === 'lane' ? all : all.filter((c) => c.holder === scope.holder);
  }
}
