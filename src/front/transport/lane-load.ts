import type { Limits } from '../../policy/model.js';

export type LoadKind = 'requests' | 'streams';

/** The limit setting behind each kind, as the error names it. */
const SETTING: Record<LoadKind, keyof Limits> = {
  requests: 'requestsPerLane',
  streams: 'streamsPerLane',
};

export interface LoadRefusal {
  status: 429;
  setting: string;
  limit: number;
  message: string;
  retryAfterS: number;
}

/**
 * What each lane has open right now (HTTP requests, calls in flight, streams), against the
 * policy's per-lane limits. `take` either counts one more and returns its release (idempotent),
 * or refuses with a 429 naming the limit and the setting that raises it. Pure bookkeeping.
 */
export class LaneLoad {
  private readonly counts = new Map<string, number>();

  constructor(private readonly limits: () => Limits) {}

  take(lane: string, kind: LoadKind): (() => void) | LoadRefusal {
    const key = `${kind}\u0000${lane}`;
    const n = this.counts.get(key) ?? 0;
    const setting = SETTING[kind];
    const limit = this.limits()[setting];
    if (n >= limit) {
      return {
        status: 429,
        setting: `gateway.limits.${setting}`,
        limit,
        message: `Too many ${kind} open for this lane (${limit}); finish some first, or raise gateway.limits.${setting}`,
        retryAfterS: kind === 'streams' ? 30 : 1,
      };
    }
    this.counts.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.counts.get(key) ?? 1) - 1;
      if (now <= 0) this.counts.delete(key);
      else this.counts.set(key, now);
    };
  }

  of(lane: string, kind: LoadKind): number {
    return this.counts.get(`${kind}\u0000${lane}`) ?? 0;
  }
}
