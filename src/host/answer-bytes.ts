import { LaneLedger } from '../link/lane-ledger.js';

/**
 * A lane's answers a host holds while it checks them: parsed, read through by the secret scan
 * (which keeps readings of a long string) and the tripwire; their serialisation onto the link
 * follows the release. Each costs the host a few times its size while it is there, and a
 * lane's burst of large answers was all there at once (attack round 37: ten concurrent 23 MB reads,
 * host 959 MB). Counted by the characters of the line each came on, per lane and in all, against
 * gateway.limits.unsentBytesPerLane and gateway.limits.unsentBytes (bytes not yet delivered to the
 * lane, as the front counts its own). An answer that would pass a bound while others are held is
 * refused, never queued: a queue would hold it too. The first is always let through (it is under
 * resultBytes). Pure bookkeeping.
 */
export interface AnswerLimits {
  perLane: number;
  total: number;
}

export type AnswerHold =
  | { ok: true; release: () => void }
  | { ok: false; setting: 'gateway.limits.unsentBytesPerLane' | 'gateway.limits.unsentBytes'; limit: number; held: number };

const NOTHING_HELD: AnswerHold = { ok: true, release: () => undefined };

export class AnswerBytes {
  private readonly held = new LaneLedger();

  constructor(private readonly limits: () => AnswerLimits) {}

  /** Holds an answer of `chars` for `lane` until released; 0 (a short answer) holds nothing. */
  hold(lane: string, chars: number): AnswerHold {
    if (chars <= 0) return NOTHING_HELD;
    const l = this.limits();
    const mine = this.held.of(lane);
    const all = this.held.total;
    if (mine > 0 && mine + chars > l.perLane)
      return { ok: false, setting: 'gateway.limits.unsentBytesPerLane', limit: l.perLane, held: mine };
    if (all > 0 && all + chars > l.total) return { ok: false, setting: 'gateway.limits.unsentBytes', limit: l.total, held: all };
    return { ok: true, release: this.held.take(lane, chars) };
  }

  /** What a lane holds here now. */
  of(lane: string): number {
    return this.held.of(lane);
  }

  get total(): number {
    return this.held.total;
  }
}
