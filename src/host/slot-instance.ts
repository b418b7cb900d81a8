import { LanegateError } from '../errors.js';
import { unansweredInTime } from '../rpc/endpoint.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import type { Instance } from './slot-types.js';

/** A child of a slot before its first start: no link, no failures, no timers. */
export const newInstance = (key: string, lane: string | undefined, era: Era): Instance => ({
  key,
  lane,
  era,
  attached: new Set(),
  crashes: 0,
  retryAt: 0,
  startedAt: 0,
  stopping: false,
  calls: 0,
});

/**
 * The child's link as the slot hands it out: each request counts as the instance's work until it
 * settles, and `settled` runs when the last one does (the idle time counts from there). A call
 * that runs longer than the idle time keeps its child; before, the timer set when it began stopped
 * the child under it. `timedOut` runs when a request got no answer in time (stuck-child.ts).
 */
export const counting = (conn: UpstreamConn, inst: Instance, settled: () => void, timedOut?: () => void): UpstreamConn => {
  const done = (): void => {
    inst.calls -= 1;
    if (inst.calls === 0) settled();
  };
  // A request the child never answered in time (not one it answered with a timeout of its own).
  const failed = (e: unknown): void => {
    done();
    if (unansweredInTime(e)) timedOut?.();
  };
  return {
    ...conn,
    request: (method, params, timeoutMs, signal) => {
      inst.calls += 1;
      let p: Promise<Record<string, unknown>>;
      try {
        p = conn.request(method, params, timeoutMs, signal);
      } catch (e) {
        done();
        throw e;
      }
      p.then(done, failed);
      return p;
    },
  };
};

/** What a call is told while the child it needs waits out its restart backoff (named, with the wait). */
export const backoffRefusal = (server: string, inst: Instance, now: number): LanegateError =>
  new LanegateError(
    'upstream_unavailable',
    `upstream "${server}" ${inst.lastError ?? 'failed'}; restarting in ${Math.ceil((inst.retryAt - now) / 100) / 10}s (crash ${inst.crashes})`,
    { kind: inst.lastKind ?? 'crashed' },
  );
