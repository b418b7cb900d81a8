import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 collects a heap of short-lived large strings lazily: a lane pulling 24 MB answers leaves
 * each behind as garbage, and before its next major collection the front's resident memory had
 * grown past 400 MB with only two answers alive (measured: 495 MB peak over 44 answers; 190 MB
 * with a 200 MB heap cap, which shows the memory was garbage, not live). A cap would turn a
 * burst into a crash, so instead the front asks for a collection once large lines worth
 * `everyBytes` have passed through it, at most once per `minGapMs`, and only when the heap in
 * use has passed `heapFloor` (64 MiB). A forced collection is a full stop-the-world one (5-60 ms
 * with large answers in flight) where V8's own run mostly beside the event loop: below the floor
 * those do the work, so a lane reading its large answers costs other lanes fewer pauses (issue
 * 19's byte-flood bench: the front's GC time per 3.9 MB echo fell by half). 64 MiB rather than
 * 128: the fairness measured the same at both, and the lower floor bounds the garbage a burst
 * leaves (one full test run at 128 had fuzz wait 33 s for the front's RSS to settle, another 17 s).
 */
const obtainGc = (): (() => void) | undefined => {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
};

export class GcHint {
  private pending = 0;
  private last = 0;
  private gc: (() => void) | undefined | null = null;

  constructor(
    private readonly everyBytes = 32 * 1024 * 1024,
    private readonly minGapMs = 200,
    private readonly now: () => number = Date.now,
    private readonly heapFloor = 64 * 1024 * 1024,
    private readonly usedHeap: () => number = () => getHeapStatistics().used_heap_size,
    /** The collection itself (V8's, exposed at first use); a test passes its own. */
    private readonly collect?: () => void,
  ) {}

  /** `bytes` of large text have passed through and will soon be garbage. */
  note(bytes: number): void {
    this.pending += bytes;
    if (this.pending < this.everyBytes) return;
    const t = this.now();
    if (t - this.last < this.minGapMs) return;
    this.pending = 0;
    if (this.usedHeap() < this.heapFloor) return;
    this.last = t;
    if (this.gc === null) this.gc = this.collect ?? obtainGc();
    // After this turn: the line that triggered it is still in use now.
    if (this.gc) setImmediate(this.gc);
  }
}

let shared: GcHint | undefined;

/** One hint per process: every large line or body it reads counts toward the same collection. */
export const largeText = (): GcHint => {
  shared ??= new GcHint();
  return shared;
};
