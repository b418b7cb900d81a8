import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 collects a heap of short-lived large strings lazily: a lane pulling 24 MB answers leaves
 * each behind as garbage, and before its next major collection the front's resident memory had
 * grown past 400 MB with only two answers alive (measured: 495 MB peak over 44 answers; 190 MB
 * with a 200 MB heap cap, which shows the memory was garbage, not live). A cap would turn a
 * burst into a crash, so instead the front asks for a collection once large lines worth
 * `everyBytes` have passed through it, at most once per `minGapMs`. A full collection of the
 * front's small live heap costs a few milliseconds; large answers are rare by nature.
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
    private readonly heapFloor = 128 * 1024 * 1024,
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
