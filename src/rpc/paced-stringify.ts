/**
 * JSON.stringify for a large message, in steps (issue 19): whole, a 3.9 MB answer costs ~6 ms of
 * serialisation plus a flattening copy before its first byte is written, and an answer of a
 * million short strings ~190 ms (attack round 39), which another lane's small call waits behind.
 *
 * Here a message is written a piece at a time, `pause` between pieces: a long string is escaped a
 * window at a time; a container too heavy to write in one step is written a member at a time, its
 * light members in batches of about BATCH_UNITS by JSON.stringify (an array's as a slice of it, an
 * object's a member each), its heavy ones entered the same way. The text is handed on as its
 * parts, in order (a LineWriter writes them without joining them).
 *
 * The text is JSON.stringify's, exactly: a window cut never splits a surrogate pair, JSON.stringify
 * of a window is that window's part of the string's JSON form (a window with nothing to escape is
 * its own, kept as a slice), and JSON.stringify of a slice of an array, or of one member, is that
 * part of the container's text. Only plain arrays and objects are entered; anything else (a value
 * with toJSON, a boxed primitive, a class) is written whole, as JSON.stringify writes it (the one
 * difference: a toJSON there is given '' or its index in a slice, not its key; what a link sends
 * comes from JSON.parse and holds none).
 */
import { LONG_VALUE_CHARS, PACE_SIZES, type PaceSizes } from './paced-json.js';
import { needsJsonEscape } from './parts.js';
import { drive } from './steps.js';

/** Values a probe visits before it calls a message large (a tools/list of 500 tools is not). */
const PROBE_NODES = 4096;

/** Depth past which a probe stops descending (a message that deep is serialised in steps: the same text either way). */
const PROBE_DEPTH = 64;

/** A step's work: values count one each, and a string one more per CHARS_A_UNIT characters (~1.5 ms here). */
const BATCH_UNITS = 8192;
const CHARS_A_UNIT = 64;

/** The cuts: PaceSizes', and the units of a step (tests make them small, to put every edge on a cut). */
type Sizes = PaceSizes & { units: number };

/** Containers entered, at most, one inside another (deeper ones are written whole, as their text is the same). */
const MAX_DEPTH = 64;

/** Pieces shorter than this are gathered into one part (a LineWriter writes each part it is given). */
const GATHER_CHARS = 64 * 1024;

/** The probe's walk: true when it finds a long string or runs out of values; `left[0]` counts the values it may still visit. */
const probe = (v: unknown, left: [number], depth: number): boolean => {
  if (left[0]-- <= 0) return true;
  if (typeof v === 'string') return v.length >= LONG_VALUE_CHARS;
  if (v === null || typeof v !== 'object') return false;
  if (depth >= PROBE_DEPTH) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i += 1) if (probe(v[i], left, depth + 1)) return true;
    return false;
  }
  // for-in, not Object.keys: no array per object (the probe runs on every message a link sends).
  for (const k in v) if (probe((v as Record<string, unknown>)[k], left, depth + 1)) return true;
  return false;
};

/**
 * Whether a message is large: it holds a string of LONG_VALUE_CHARS or more, or more than
 * PROBE_NODES values (about a microsecond for the small messages of nearly every call). Only the
 * path is chosen here: pacedStringify and JSON.stringify write the same text.
 */
export const isLargeMessage = (msg: unknown): boolean => probe(msg, [PROBE_NODES], 0);

/** Whether JSON.stringify writes `v` as a plain array or object (no toJSON, no boxed primitive, no class). */
const plain = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * One serialisation's reading of its message: each object's keys are read once, each value weighed
 * once. An object of 480,000 keys costs ~150 ms each time its keys are listed here (attack round
 * 40), and weighing a parent, then the object, then writing it listed them five times.
 */
class Reading {
  private readonly keys = new WeakMap<object, string[]>();
  private readonly weights = new WeakMap<object, number>();
  constructor(
    private readonly limit: number,
    private readonly longValue: number,
  ) {}

  keysOf(o: Record<string, unknown>): string[] {
    let k = this.keys.get(o);
    if (!k) {
      k = Object.keys(o);
      this.keys.set(o, k);
    }
    return k;
  }

  /** `v`'s weight in units, counted up to the limit (then the limit); a long string weighs the limit. */
  weigh(v: unknown): number {
    const known = v !== null && typeof v === 'object' ? this.weights.get(v) : undefined;
    if (known !== undefined) return known;
    const limit = this.limit;
    let w = 0;
    const stack: unknown[] = [v];
    while (stack.length > 0 && w < limit) {
      const x = stack.pop();
      w += 1;
      if (typeof x === 'string') {
        if (x.length >= this.longValue) {
          w = limit;
          break;
        }
        w += Math.floor(x.length / CHARS_A_UNIT);
      } else if (plain(x)) {
        if (Array.isArray(x)) for (let i = 0; i < x.length && w + stack.length < limit; i += 1) stack.push(x[i]);
        else {
          const keys = this.keysOf(x);
          for (let i = 0; i < keys.length && w + stack.length < limit; i += 1) stack.push(x[keys[i] as string]);
        }
      }
    }
    const weight = Math.min(w, limit);
    if (v !== null && typeof v === 'object') this.weights.set(v, weight);
    return weight;
  }
}

/** The text's parts: short pieces gathered, long ones (windows of a long string) kept as they are. */
class Parts {
  readonly out: string[] = [];
  private gathered: string[] = [];
  private chars = 0;
  add(s: string): void {
    if (s.length >= GATHER_CHARS) {
      this.flush();
      this.out.push(s);
      return;
    }
    this.gathered.push(s);
    this.chars += s.length;
    if (this.chars >= GATHER_CHARS) this.flush();
  }
  flush(): void {
    if (this.gathered.length === 0) return;
    this.out.push(this.gathered.length === 1 ? (this.gathered[0] as string) : this.gathered.join(''));
    this.gathered = [];
    this.chars = 0;
  }
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** One long string's JSON form, a window a step. */
function* escapeLong(s: string, out: Parts, window: number): Generator<void, void> {
  out.add('"');
  for (let a = 0; a < s.length; ) {
    let b = Math.min(a + window, s.length);
    if (b < s.length && isHighSurrogate(s.charCodeAt(b - 1))) b -= 1;
    const w = s.slice(a, b);
    out.add(needsJsonEscape(w) ? JSON.stringify(w).slice(1, -1) : w);
    a = b;
    if (a < s.length) yield;
  }
  out.add('"');
}

/** A plain array too heavy for one step: light elements a slice at a time, heavy ones entered. */
function* writeArray(v: unknown[], out: Parts, z: Sizes, r: Reading, depth: number): Generator<void, void> {
  out.add('[');
  let from = 0;
  let w = 0;
  let first = true;
  const flush = (to: number): void => {
    if (to <= from) return;
    const s = JSON.stringify(v.slice(from, to));
    out.add(first ? s.slice(1, -1) : `,${s.slice(1, -1)}`);
    first = false;
  };
  for (let i = 0; i < v.length; i += 1) {
    const wx = r.weigh(v[i]);
    if (wx >= z.units) {
      flush(i);
      if (!first) out.add(',');
      first = false;
      yield;
      yield* write(v[i], out, z, r, depth + 1);
      from = i + 1;
      w = 0;
      continue;
    }
    w += wx;
    if (w >= z.units) {
      flush(i + 1);
      from = i + 1;
      w = 0;
      yield;
    }
  }
  flush(v.length);
  out.add(']');
}

/** A plain object too heavy for one step: light members in batches, heavy ones entered. */
function* writeObject(v: Record<string, unknown>, out: Parts, z: Sizes, r: Reading, depth: number): Generator<void, void> {
  out.add('{');
  let first = true;
  let w = 0;
  for (const k of r.keysOf(v)) {
    const x = v[k];
    const wx = r.weigh(x);
    if (wx >= z.units) {
      out.add(`${first ? '' : ','}${JSON.stringify(k)}:`);
      first = false;
      yield;
      yield* write(x, out, z, r, depth + 1);
      w = 0;
      continue;
    }
    // JSON.stringify leaves out a member whose value it cannot write (undefined, a function).
    const s = JSON.stringify(x);
    if (s === undefined) continue;
    out.add(`${first ? '' : ','}${JSON.stringify(k)}:${s}`);
    first = false;
    w += wx;
    if (w >= z.units) {
      w = 0;
      yield;
    }
  }
  out.add('}');
}

/** `v`'s JSON text into `out`, in steps. */
function* write(v: unknown, out: Parts, z: Sizes, r: Reading, depth: number): Generator<void, void> {
  if (typeof v === 'string' && v.length >= z.longValue) return yield* escapeLong(v, out, z.window);
  if (!plain(v) || depth >= MAX_DEPTH || r.weigh(v) < z.units) {
    const s = JSON.stringify(v) as string | undefined;
    if (s !== undefined) out.add(s);
    return;
  }
  if (Array.isArray(v)) yield* writeArray(v, out, z, r, depth);
  else yield* writeObject(v, out, z, r, depth);
}

/** JSON.stringify(msg) as parts, in steps; a message light enough for one step is one part. */
export const pacedStringify = async (msg: unknown, pause: () => Promise<void>, sizes: Partial<Sizes> = {}): Promise<string[]> => {
  const z: Sizes = { ...PACE_SIZES, units: BATCH_UNITS, ...sizes };
  const out = new Parts();
  const steps = write(msg, out, z, new Reading(z.units, z.longValue), 0);
  // A turn first: the probe that sent a message here may have listed a huge object's keys just now.
  await pause();
  await drive(steps, pause);
  out.flush();
  return out.out;
};
