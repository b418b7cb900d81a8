import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 collects a heap of short-lived large strings lazily: a lane pulling 24 MB answers leaves
 * each behind as garbage, and before its next major collection the front's resident memory had
 * grown past 400 MB with only two answers alive (measured: 495 MB peak over 44 answers; 190 MB
 * with a 200 MB heap cap, which shows the memory was garbage, not live). A cap would turn a
 * burst into a crash, so instead the front asks for a collection once large lines worth
 * `everyBytes` have passed through it, at most once per `minGapMs`, and only when the heap in
 * use has passed `heapFloor` (256 MiB). A forced collection is a full stop-the-world one (5-60 ms
 * with large answers in flight) where V8's own run mostly beside the event loop: below the floor
 * those do the work, so a lane reading its large answers costs other lanes fewer pauses (issue
 * 19's byte-flood bench: the front's GC time per 3.9 MB echo fell by half).
 *
 * The floor is 256 MiB since large messages are parsed and serialised in windows and written as
 * parts (paced-json.ts, parts.ts): they leave far less garbage, and at 64 MiB the forced
 * collections had become the byte flood's longest stalls (--trace-gc of the front over 15 s of
 * it: 8 forced full collections of 9–31 ms, against 2–12 ms for V8's own). Without any forced
 * collection, 44 unread 24 MB answers peaked the front at 173 MB (byte-limits, bound 400 MB)
 * and fuzz's 10,000 requests left it at 91 MB: the hint is now a backstop for a heap past 256 MiB.
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
    private readonly heapFloor = 256 * 1024 * 1024,
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
