import { ByteTurns } from '../link/byte-turns.js';
import { RecentSizes } from '../link/recent-sizes.js';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';

/** How long a call's last large answer shapes the turns of the same call. */
export const EXPECT_MS = 10 * 60_000;
/** Calls remembered at most (the oldest is forgotten first). */
export const EXPECT_KEYS = 4096;

/**
 * A lane's calls to its upstreams, weighed by what the same call answered last: a call whose last
 * answer was large (a read of a 31 MB graph) runs while the lane's calls so weighed stay under
 * gateway.limits.unsentBytesPerLane, else waits in the host, its request not yet sent, until one
 * ends. The first always runs. Attack round 38: 64 concurrent reads of one graph had the lane's own
 * server build 64 answers at once (3.9-4.2 GB, then its exit), and every one of them reached the
 * host to be refused there (answer-bytes.ts). A call never seen large takes no turn, so a lane's
 * first burst still goes through; answer-bytes.ts bounds what of it the host holds.
 */
export class AnswerTurns {
  private readonly turns: ByteTurns;
  /** Each call's last large answer (the oldest forgotten first past EXPECT_KEYS). */
  private readonly last: RecentSizes;

  constructor(perLane: () => number, now: () => number = Date.now) {
    this.turns = new ByteTurns(perLane);
    this.last = new RecentSizes(EXPECT_MS, now, EXPECT_KEYS);
  }

  /** The size the call `key` is expected to answer with: its last answer if that was large and recent, else 0. */
  expected(key: string): number {
    return this.last.get(key);
  }

  /** The call `key` answered with `chars` (0: a short answer, which clears what was expected). */
  note(key: string, chars: number): void {
    this.last.set(key, chars);
  }

  /**
   * A call refused for its answer's size (over resultBytes, the size named in the error) is
   * expected that large next time: the upstream built it anyway (attack round 39: 60 concurrent
   * reads of a 52 MB graph, each refused, had the lane's own server build them all at once, 1.95 GB).
   */
  noteRefused(key: string, e: unknown): void {
    if (!(e instanceof RpcFailure) || e.rpc.code !== ERR.tooLarge) return;
    const bytes = Number((e.rpc.data as { bytes?: unknown } | undefined)?.bytes);
    if (Number.isFinite(bytes) && bytes > 0) this.note(key, bytes);
  }

  /**
   * The lane's turn for the call `key`: at once when it is not expected to be large or fits, else
   * when the lane's earlier large calls end: its release, or the promise of it, which rejects if
   * `signal` aborts while it waits (the lane gave up on the call), leaving nothing held.
   */
  take(lane: string, key: string, signal?: AbortSignal): (() => void) | Promise<() => void> {
    const bytes = this.expected(key);
    // Nearly every call: its turn at once, no promise (the small call's path stays as it was).
    if (bytes <= 0) return NOTHING;
    const a = this.turns.enter(lane, bytes);
    if (a.kind === 'run') return a.release;
    if (!signal) return a.started;
    return new Promise<() => void>((resolve, reject) => {
      let settled = false;
      const onAbort = (): void => {
        if (settled) return;
        settled = true;
        // Still queued: taken out. Started meanwhile: released below, once its start is seen.
        a.cancel();
        reject(cancelled());
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void a.started.then((release) => {
        signal.removeEventListener('abort', onAbort);
        if (settled) release();
        else {
          settled = true;
          resolve(release);
        }
      });
    });
  }

  /** Bytes of a lane's weighed calls running now (for tests). */
  inFlightOf(lane: string): number {
    return this.turns.inFlightOf(lane);
  }
}

const NOTHING = (): void => undefined;
const cancelled = (): RpcFailure => new RpcFailure({ code: ERR.timeout, message: 'cancelled while waiting for its turn' });

/** The call a key names: the server, the method and its target (tool name or URI), as far as they go. */
export const callKey = (lane: string, server: string, method: string, params: Record<string, unknown>): string => {
  const target = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : '';
  return `${lane}\u0000${server}\u0000${method}\u0000${target.slice(0, 512)}`;
};
