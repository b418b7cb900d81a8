/**
 * A lane's answers a host holds between its upstream's last byte and its hand-off to the front:
 * parsed, read through by the secret scan (which keeps readings of a long string) and the
 * tripwire, serialised again. Each costs the host a few times its size while it is there, and a
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
  private readonly lanes = new Map<string, number>();
  private all = 0;

  constructor(private readonly limits: () => AnswerLimits) {}

  /** Holds an answer of `chars` for `lane` until released; 0 (a short answer) holds nothing. */
  hold(lane: string, chars: number): AnswerHold {
    if (chars <= 0) return NOTHING_HELD;
    const l = this.limits();
    const mine = this.lanes.get(lane) ?? 0;
    if (mine > 0 && mine + chars > l.perLane)
      return { ok: false, setting: 'gateway.limits.unsentBytesPerLane', limit: l.perLane, held: mine };
    if (this.all > 0 && this.all + chars > l.total)
      return { ok: false, setting: 'gateway.limits.unsentBytes', limit: l.total, held: this.all };
    this.lanes.set(lane, mine + chars);
    this.all += chars;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.lanes.get(lane) ?? chars) - chars;
        if (left <= 0) this.lanes.delete(lane);
        else this.lanes.set(lane, left);
        this.all -= chars;
      },
    };
  }

  /** What a lane holds here now. */
  of(lane: string): number {
    return this.lanes.get(lane) ?? 0;
  }

  get total(): number {
    return this.all;
  }
}
