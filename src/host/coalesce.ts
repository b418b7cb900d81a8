/**
 * Runs at most one job per key at a time, and at most one more after it however many were asked
 * for meanwhile, no sooner than `gapMs` after the last one ended. A server that sends list_changed
 * on every call (attack round 8: server-everything's gzip tool adds a resource each time) then
 * costs its host a few re-vets of its whole surface a second, not one per notification: the
 * surface grows with the calls, so one per notification was quadratic (0.9 of a core, another
 * lane's p99 at 435 ms). The last job always runs after the last request: nothing is lost.
 */
export class Coalescer {
  private readonly keys = new Map<string, { again: boolean; job: () => Promise<unknown> }>();

  constructor(private readonly gapMs = 250) {}

  /** Whether a job for `key` runs, waits, or its gap has not yet passed (a new ask would wait). */
  busy(key: string): boolean {
    return this.keys.has(key);
  }

  run(key: string, job: () => Promise<unknown>): void {
    const busy = this.keys.get(key);
    if (busy) {
      // The latest ask's job is the one run next (its slot may be a new one after a reload).
      busy.again = true;
      busy.job = job;
      return;
    }
    const state = { again: false, job };
    this.keys.set(key, state);
    const next = (): void => {
      const t = setTimeout(() => {
        if (!state.again) {
          this.keys.delete(key);
          return;
        }
        state.again = false;
        void state
          .job()
          .catch(() => undefined)
          .finally(next);
      }, this.gapMs);
      t.unref();
    };
    void job()
      .catch(() => undefined)
      .finally(next);
  }
}
