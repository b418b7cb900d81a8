import { LaneLedger } from '../../link/lane-ledger.js';
import { RecentSizes } from '../../link/recent-sizes.js';

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
  /** Each lane's largest recent answer: its next calls are weighed by it (see expected). */
  private readonly recent: RecentSizes;

  constructor(
    private readonly limits: () => SendLimits,
    now: () => number = Date.now,
  ) {
    this.recent = new RecentSizes(ANSWER_MEMORY_MS, now);
  }

  /**
   * The answer size a lane's next call should be weighed at: its largest answer of the last
   * ANSWER_MEMORY_MS (0 if none was large). A lane that pulls 30 MB answers has its calls take
   * turns by that size before they are sent to a host, so its own clients' unread answers stop
   * its next calls instead of every copy being carried through the host and the front first.
   */
  expected(lane: string): number {
    return this.recent.get(lane);
  }

  /** Holds `bytes` more for a connection of `lane` that already holds `connection` bytes. */
  hold(lane: string, bytes: number, connection = 0): Hold {
    const prev = this.expected(lane);
    if (bytes >= prev) this.recent.set(lane, bytes);
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
