import { LaneLedger } from '../../link/lane-ledger.js';

/**
 * Bytes the front holds for answers that clients have not taken yet, per lane and in all. An
 * answer is held from the moment it is handed to its connection until the socket has taken its
 * last byte (or closed): a client that reads slowly, or not at all, holds its own lane's budget and
 * nobody else's. Pure bookkeeping.
 */
export interface SendLimits {
  perConnection: number;
  perLane: number;
  total: number;
}

export type Hold = { ok: true; release: () => void } | { ok: false; setting: string; limit: number; held: number };

/** How long a lane's large answer shapes the turns of its next calls. */
export const ANSWER_MEMORY_MS = 30_000;

export class SendBudget {
  private readonly held = new LaneLedger();
  /** Each lane's largest recent answer, and when: its next calls are weighed by it (see expected). */
  private readonly recent = new Map<string, { bytes: number; at: number }>();

  constructor(
    private readonly limits: () => SendLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The answer size a lane's next call should be weighed at: its largest answer of the last
   * ANSWER_MEMORY_MS (0 if none was large). A lane that pulls 30 MB answers has its calls take
   * turns by that size before they are sent to a host, so its own clients' unread answers stop
   * its next calls instead of every copy being carried through the host and the front first.
   */
  expected(lane: string): number {
    const r = this.recent.get(lane);
    if (!r) return 0;
    if (this.now() - r.at > ANSWER_MEMORY_MS) {
      this.recent.delete(lane);
      return 0;
    }
    return r.bytes;
  }

  /** Holds `bytes` more for a connection of `lane` that already holds `connection` bytes. */
  hold(lane: string, bytes: number, connection = 0): Hold {
    const prev = this.expected(lane);
    if (bytes >= prev) this.recent.set(lane, { bytes, at: this.now() });
    const l = this.limits();
    const mine = this.held.of(lane);
    if (connection + bytes > l.perConnection)
      return { ok: false, setting: 'gateway.limits.unsentBytesPerConnection', limit: l.perConnection, held: connection };
    if (mine + bytes > l.perLane) return { ok: false, setting: 'gateway.limits.unsentBytesPerLane', limit: l.perLane, held: mine };
    if (this.held.total + bytes > l.total)
      return { ok: false, setting: 'gateway.limits.unsentBytes', limit: l.total, held: this.held.total };
    return { ok: true, release: this.held.take(lane, bytes) };
  }

  of(lane: string): number {
    return this.held.of(lane);
  }

  get total(): number {
    return this.held.total;
  }
}
