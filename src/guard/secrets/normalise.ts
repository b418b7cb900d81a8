import { disguiseAt, firstDisguise, foldOf, lastEscapeFold, oneForOne, PERCENT, UNITS } from './disguises.js';
import { IndexMap, type Normalised, type RangeMap } from './index-map.js';

export { disguised } from './disguises.js';
export type { Normalised, RangeMap } from './index-map.js';

const grow = (units: Uint16Array, need: number): Uint16Array => {
  const bigger = new Uint16Array(Math.max(need, units.length * 2));
  bigger.set(units);
  return bigger;
};

/**
 * The first n UTF-16 units as a string: a one-byte string when every unit is below 256 (as a
 * reading's are, but for text outside Latin-1: half the memory, and half the copy when the pieces
 * are joined), else natively where the machine is little-endian, as nearly all are.
 */
const fromUnits = (units: Uint16Array, n: number): string => {
  let wide = false;
  for (let i = 0; i < n && !wide; i += 1) wide = (units[i] as number) > 0xff;
  if (!wide) {
    const bytes = Uint8Array.from(units.subarray(0, n));
    return Buffer.from(bytes.buffer, bytes.byteOffset, n).toString('latin1');
  }
  if (LITTLE_ENDIAN) return Buffer.from(units.buffer, units.byteOffset, n * 2).toString('utf16le');
  let s = '';
  for (let i = 0; i < n; i += 4096) s += String.fromCharCode(...units.subarray(i, Math.min(n, i + 4096)));
  return s;
};
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * One reading of a text, made a step at a time: each `step` reads on through a bounded stretch of
 * the original, so a long string's reading can pause between steps (attack round 36: one reading of
 * 31 MB of `%252567%` held a host's event loop for 3 s, three of them 9 s). The normalised text is
 * built from one string piece a step; the buffer a step writes into is the step's size, not the text's.
 */
class Reader {
  /** Undefined for a reading made without one (its finds are placed anywhere in the text: see `whole`). */
  readonly map: IndexMap | undefined;
  private readonly pieces: string[] = [];
  private out: Uint16Array;
  /** Normalised characters so far (all in pieces between steps). */
  private n = 0;
  private o = 0;
  // The run being copied: whether there is one, and its offset (original index - normalised index).
  private inRun = false;
  private delta = 0;

  constructor(
    private readonly text: string,
    step: number,
    mapped = true,
  ) {
    this.map = mapped ? new IndexMap() : undefined;
    this.out = new Uint16Array(Math.min(text.length, step) + 64);
  }

  /** Reads on through about `chars` more characters of the original (a disguise is never cut); true once all are read. */
  step(chars: number): boolean {
    const { text, map } = this;
    const stop = Math.min(text.length, this.o + chars);
    let { o, n, out } = this;
    const base = n;
    if (out.length < stop - o + 64) out = new Uint16Array(stop - o + 64);
    while (o < stop) {
      const c = text.charCodeAt(o);
      const width = UNITS[c] === 0 ? 0 : disguiseAt(text, o);
      const one = width === 1 ? oneForOne(c) : -1;
      if (width === 0 || one >= 0) {
        // Copied as it is, or folded one for one (full-width ASCII): the run's offset holds.
        if (!this.inRun || o - n !== this.delta) {
          map?.run(n, o);
          this.inRun = true;
          this.delta = o - n;
        }
        out[n - base] = width === 0 ? c : one;
        n += 1;
        o += 1;
        // The plain units after it, in a tight loop.
        while (o < stop) {
          const d = text.charCodeAt(o);
          if (UNITS[d] !== 0) break;
          out[n - base] = d;
          n += 1;
          o += 1;
        }
        continue;
      }
      // disguiseAt just read the escape at o: lastEscapeFold is what it reads as.
      const f = c === PERCENT ? lastEscapeFold() : foldOf(text.slice(o, o + width));
      if (f.length > 0) {
        if (n - base + f.length > out.length) out = grow(out, n - base + f.length);
        map?.folded(n, o, o + width);
        for (let j = 0; j < f.length; j += 1) out[n - base + j] = f.charCodeAt(j);
        n += f.length;
      }
      this.inRun = false;
      o += width;
    }
    if (n > base) this.pieces.push(fromUnits(out, n - base));
    this.o = o;
    this.n = n;
    this.out = out;
    return o >= text.length;
  }

  /** The reading (after the last step). */
  result(): Normalised {
    const text = this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join('');
    return { text, map: this.map ?? whole(this.text.length) };
  }
}

/**
 * The map of a reading made without an index: whatever is found came from somewhere in the text,
 * so its range is the whole text (redacting by it would cut all of it: never too little).
 */
const whole = (length: number): RangeMap => ({ range: () => [0, length] });

/**
 * One reading as steps: a generator that yields where a paced reading pauses (every `step`
 * characters of the original), and returns the reading, or undefined when the text holds no
 * disguise. Run at once (`atOnce`) or paced (`paced`): one code for both.
 */
function* reading(text: string, step: number, mapped: boolean): Generator<void, Normalised | undefined> {
  if (firstDisguise(text) < 0) return undefined;
  const r = new Reader(text, step, mapped);
  while (!r.step(step)) yield;
  return r.result();
}

/** Readings of one string at most: a layer of encoding each (`%2567` is `%67` is `g`; `％６７` is `%67`). */
const READINGS = 3;

/** Where a range of the inner reading came from in the text the outer one was read from. */
const through = (outer: RangeMap, inner: RangeMap): RangeMap => ({
  range: (start, end) => {
    const [a, b] = inner.range(start, end);
    return outer.range(a, b);
  },
});

/** A reading, read again while it still holds a disguise (see readThrough), as steps. */
function* readings(text: string, step: number, mapped: boolean): Generator<void, Normalised | undefined> {
  let n = yield* reading(text, step, mapped);
  // A reading is ASCII where it changed: only a `%` there can make another (a decoded or folded one).
  for (let k = 1; n?.text.includes('%') && k < READINGS; k += 1) {
    yield;
    const next = yield* reading(n.text, step, mapped);
    if (!next) break;
    n = { text: next.text, map: mapped ? through(n.map, next.map) : whole(text.length) };
  }
  return n;
}

const atOnce = <T>(steps: Generator<void, T>): T => {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
};

const paced = async <T>(steps: Generator<void, T>, pause: () => Promise<void>): Promise<T> => {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await pause();
  }
};

/**
 * The text with hidden characters removed, compatibility forms folded to ASCII and percent-escapes
 * of printable ASCII decoded, or undefined when it holds none (nothing to do). One pass, linear in
 * the string.
 */
export const normalise = (text: string): Normalised | undefined => atOnce(reading(text, text.length, true));

/** Characters of the original one step of a paced reading reads (~1-3 ms; escapes cost ~30 ns each). */
export const READ_STEP = 64 * 1024;

/**
 * `normalise`, `pause` awaited between steps of `step` characters. Without `mapped`, no index is
 * kept (a scan that reports only which rules matched needs none: attack round 36, three readings'
 * indexes of 31 MB of `%252567%` were 280 MB), and every range maps to the whole text.
 */
export const normalisePaced = (
  text: string,
  pause: () => Promise<void>,
  step = READ_STEP,
  mapped = true,
): Promise<Normalised | undefined> => paced(reading(text, step, mapped), pause);

/**
 * `normalise`, read again while a reading still holds a disguise (attack round 13: double
 * percent-encoding and a full-width percent sign hid a token), at most READINGS times; its map leads
 * from the last reading back to the original. Text without a disguise (nearly all) costs the one check.
 */
export const readThrough = (text: string): Normalised | undefined =>
  firstDisguise(text) < 0 ? undefined : atOnce(readings(text, text.length, true));

/** `readThrough`, each reading made a step at a time with `pause` between steps: the same readings (`mapped`: see normalisePaced). */
export const readThroughPaced = (
  text: string,
  pause: () => Promise<void>,
  step = READ_STEP,
  mapped = true,
): Promise<Normalised | undefined> => paced(readings(text, step, mapped), pause);
