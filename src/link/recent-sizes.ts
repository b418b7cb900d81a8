/**
 * Sizes remembered per key for a while: each forgotten `ttlMs` after it was noted, at most `cap`
 * keys (the oldest noted forgotten first). What the front's send budget weighs a lane's next calls
 * by (send-budget.ts) and what a host expects a call to answer with (answer-turns.ts). Pure.
 */
export class RecentSizes {
  /** In the order noted (Map order: oldest first). */
  private readonly last = new Map<string, { bytes: number; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly cap = Number.POSITIVE_INFINITY,
  ) {}

  /** The size noted for `key` within ttlMs, else 0. */
  get(key: string): number {
    const e = this.last.get(key);
    if (!e) return 0;
    if (this.now() - e.at > this.ttlMs) {
      this.last.delete(key);
      return 0;
    }
    return e.bytes;
  }

  /** Notes `bytes` for `key` now (0 or less forgets it). */
  set(key: string, bytes: number): void {
    this.last.delete(key);
    if (bytes <= 0) return;
    this.last.set(key, { bytes, at: this.now() });
    if (this.last.size > this.cap) this.last.delete(this.last.keys().next().value as string);
  }
}
