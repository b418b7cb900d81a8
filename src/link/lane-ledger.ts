/**
 * Bytes held per lane and in all, each hold released once: what the front's unsent answers
 * (send-budget.ts) and a host's answers in processing (answer-bytes.ts) count, each with bounds
 * of its own. Pure bookkeeping.
 */
export class LaneLedger {
  private readonly lanes = new Map<string, number>();
  private all = 0;

  /** What a lane holds now. */
  of(lane: string): number {
    return this.lanes.get(lane) ?? 0;
  }

  /** What all lanes hold now. */
  get total(): number {
    return this.all;
  }

  /** Holds `bytes` for `lane` (its bounds checked by the caller); the release frees them, once. */
  take(lane: string, bytes: number): () => void {
    this.lanes.set(lane, this.of(lane) + bytes);
    this.all += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.of(lane) - bytes;
      if (left <= 0) this.lanes.delete(lane);
      else this.lanes.set(lane, left);
      this.all -= bytes;
    };
  }
}
