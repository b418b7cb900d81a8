import { LanegateError } from '../errors.js';
import type { Era } from '../upstream/conn.js';
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
});

/** What a call is told while the child it needs waits out its restart backoff (named, with the wait). */
export const backoffRefusal = (server: string, inst: Instance, now: number): LanegateError =>
  new LanegateError(
    'upstream_unavailable',
    `upstream "${server}" ${inst.lastError ?? 'failed'}; restarting in ${Math.ceil((inst.retryAt - now) / 100) / 10}s (crash ${inst.crashes})`,
    { kind: inst.lastKind ?? 'crashed' },
  );
