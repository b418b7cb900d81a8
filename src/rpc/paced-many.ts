/**
 * JSON.parse for a large text made of many values, in steps (issue 19, attack round 39): an
 * answer of a million short strings (25.8 MB) was one JSON.parse of 230-450 ms at its host, past
 * the paced parse's token limit, and every other lane on that host waited behind it.
 *
 * The text is cut where JSON itself allows: a container's members are found by one scan (strings
 * hopped quote to quote, nesting counted between them), runs of consecutive members of about
 * `batch` characters are parsed together by JSON.parse (`[` + their text + `]`, or `{…}`), and a
 * member of `large` characters or more is entered (a container) or decoded a window at a time (a
 * string). The generator yields between batches and every STEP_UNITS units of scanning; its
 * driver pauses there.
 *
 * The result is JSON.parse's, exactly. Every member's text is parsed by JSON.parse, in a batch or
 * (a large one) by the same cut again; what lies between them (one comma, white space, a key and
 * its colon before a large member, the closing bracket of the right kind) is checked here; an
 * object's members are set in order, so a repeated key keeps its first place and its last value,
 * and `__proto__` is an own member. Anything else throws, and the caller parses the whole text
 * (which then throws as JSON.parse does).
 */
import { decodeLongSteps } from './long-value.js';

/** Where the text is cut (tests make them small, to put every edge on a cut). */
export interface ManySizes {
  /** Characters of consecutive members parsed together. */
  batch: number;
  /** A member this long or longer is entered (or decoded in windows) rather than batched. */
  large: number;
  /** Characters of a long string decoded a step. */
  window: number;
}

/** ~1 ms of JSON.parse a batch on this machine (25.8 MB of short strings: ~240 ms whole). */
export const MANY_SIZES: ManySizes = { batch: 32 * 1024, large: 256 * 1024, window: 256 * 1024 };

/** Units of scanning (characters read one by one, quote hops, members) a step. */
const STEP_UNITS = 96 * 1024;

/** Containers entered, at most, one inside another (deeper ones are parsed whole). */
const MAX_DEPTH = 32;

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** A data member, as JSON.parse makes it (even one named __proto__). */
const setMember = (o: Record<string, unknown>, k: string, v: unknown): void => {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
};

/** The scan's position, where it is inside a value it is skipping, and its work since the last pause. */
class Cursor {
  units = 0;
  /** Nesting inside the value being skipped (0: at its top). */
  depth = 0;
  /** While a string is being hopped: the offset of the last quote looked at (else -1). */
  quote = -1;
  constructor(
    readonly text: string,
    public at: number,
  ) {}
  code(): number {
    return this.text.charCodeAt(this.at);
  }
  skipSpace(): void {
    while (isSpace(this.text.charCodeAt(this.at))) this.at += 1;
  }
  /** Whether a step's worth of work is done (then the count starts again). */
  due(): boolean {
    if (this.units < STEP_UNITS) return false;
    this.units = 0;
    return true;
  }
}

const fail = (at: number): never => {
  throw new SyntaxError(`not JSON at ${at}`);
};

/** Hops the string `c` is in toward its closing quote; true past it, false when the step is spent (call again). */
const hopString = (c: Cursor): boolean => {
  const t = c.text;
  for (let q = t.indexOf('"', c.quote + 1); ; q = t.indexOf('"', q + 1)) {
    if (q < 0) fail(c.at);
    c.units += 1;
    let run = 0;
    for (let i = q - 1; t.charCodeAt(i) === 0x5c; i -= 1) run += 1;
    if (run % 2 === 0) {
      c.at = q + 1;
      c.quote = -1;
      return true;
    }
    if (c.units >= STEP_UNITS) {
      c.quote = q;
      return false;
    }
  }
};

/**
 * Moves past the value that begins at `c.at` (its text only: JSON.parse judges it later); true
 * past it, false when the step is spent (the cursor keeps its place: call again). Synchronous, so
 * a million small members cost no generator each.
 */
const skipValue = (c: Cursor): boolean => {
  const t = c.text;
  for (;;) {
    if (c.quote >= 0) {
      if (!hopString(c)) return false;
      if (c.depth === 0) return true;
      continue;
    }
    const k = t.charCodeAt(c.at);
    if (k === QUOTE) {
      c.quote = c.at;
      continue;
    }
    if (c.depth === 0 && k !== OPEN_ARRAY && k !== OPEN_OBJECT) {
      const from = c.at;
      for (let x = k; !Number.isNaN(x) && x !== COMMA && x !== CLOSE_ARRAY && x !== CLOSE_OBJECT && !isSpace(x); x = t.charCodeAt(c.at))
        c.at += 1;
      c.units += c.at - from;
      if (c.at === from) fail(from);
      return true;
    }
    if (Number.isNaN(k)) fail(c.at);
    c.at += 1;
    c.units += 1;
    if (k === OPEN_ARRAY || k === OPEN_OBJECT) c.depth += 1;
    else if ((k === CLOSE_ARRAY || k === CLOSE_OBJECT) && --c.depth === 0) return true;
    if (c.units >= STEP_UNITS) return false;
  }
};

/** skipValue to its end, yielding each time a step is spent. */
function* skipSteps(c: Cursor): Generator<void, void> {
  while (!skipValue(c)) {
    c.units = 0;
    yield;
  }
}

/** Elements copied a step when an array's batches are joined. */
const COPY_STEP = 64 * 1024;

/**
 * One array of the batches' elements, copied COPY_STEP a step into an array made at its full
 * length (pushing into one array as batches came grew it by copies of up to its whole length, tens
 * of milliseconds each at a million elements).
 */
function* joined(chunks: unknown[][], count: number): Generator<void, unknown[]> {
  if (chunks.length === 1) return chunks[0] as unknown[];
  const out: unknown[] = new Array(count);
  let at = 0;
  let since = 0;
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += 1) out[at + i] = chunk[i];
    at += chunk.length;
    since += chunk.length;
    if (since >= COPY_STEP) {
      since = 0;
      yield;
    }
  }
  return out;
}

/** What a container has read: an array's batches (joined at its end), or an object's members as they come. */
class Members {
  private readonly chunks: unknown[][] = [];
  private count = 0;
  private readonly out: Record<string, unknown> = {};
  constructor(
    private readonly text: string,
    readonly array: boolean,
  ) {}
  /** The members in text [from, to), parsed together (nothing when from < 0). */
  batch(from: number, to: number): void {
    if (from < 0) return;
    if (this.array) return void this.add(JSON.parse(`[${this.text.slice(from, to)}]`) as unknown[]);
    const part = JSON.parse(`{${this.text.slice(from, to)}}`) as Record<string, unknown>;
    for (const k of Object.keys(part)) setMember(this.out, k, part[k]);
  }
  /** One member read alone (`key`: an object member's key token). */
  one(key: string | undefined, v: unknown): void {
    if (this.array) this.add([v]);
    else setMember(this.out, JSON.parse(key as string) as string, v);
  }
  *value(): Generator<void, unknown> {
    return this.array ? yield* joined(this.chunks, this.count) : this.out;
  }
  private add(part: unknown[]): void {
    this.chunks.push(part);
    this.count += part.length;
  }
}

/** Past an object member's key, its colon and white space; the key's token (JSON.parse reads it, if ever). */
function* keyOf(c: Cursor): Generator<void, string> {
  const from = c.at;
  if (c.code() !== QUOTE) fail(c.at);
  if (!skipValue(c)) yield* skipSteps(c);
  const to = c.at;
  c.skipSpace();
  if (c.code() !== COLON) fail(c.at);
  c.at += 1;
  c.skipSpace();
  return c.text.slice(from, to);
}

/** A large member's value at [value, end): a string decoded in windows, a container entered. */
function* largeValue(c: Cursor, z: ManySizes, depth: number, value: number, end: number): Generator<void, unknown> {
  if (c.text.charCodeAt(value) === QUOTE) return yield* decodeLongSteps(c.text, value, end - 1, z.window);
  if (depth >= MAX_DEPTH) return JSON.parse(c.text.slice(value, end));
  c.at = value;
  const v = yield* container(c, z, depth + 1);
  if (c.at !== end) fail(c.at);
  return v;
}

/** The container opening at `c.at`, parsed in batches; `c.at` ends past its closing bracket. */
function* container(c: Cursor, z: ManySizes, depth: number): Generator<void, unknown> {
  const array = c.code() === OPEN_ARRAY;
  const closer = array ? CLOSE_ARRAY : CLOSE_OBJECT;
  const members = new Members(c.text, array);
  c.at += 1;
  c.skipSpace();
  if (c.code() === closer) {
    c.at += 1;
    return yield* members.value();
  }
  let batch = -1;
  for (;;) {
    const member = c.at;
    const key = array ? undefined : yield* keyOf(c);
    const value = c.at;
    const kind = c.code();
    if (!skipValue(c)) yield* skipSteps(c);
    const end = c.at;
    c.units += 1;
    if (end - value >= z.large && (kind === QUOTE || kind === OPEN_ARRAY || kind === OPEN_OBJECT)) {
      members.batch(batch, lastEnd(c.text, member));
      batch = -1;
      yield;
      const v = yield* largeValue(c, z, depth, value, end);
      c.at = end;
      members.one(key, v);
    } else {
      if (batch < 0) batch = member;
      if (end - batch >= z.batch) {
        members.batch(batch, end);
        batch = -1;
        yield;
      }
    }
    c.skipSpace();
    const next = c.code();
    if (next === closer) {
      members.batch(batch, end);
      c.at += 1;
      return yield* members.value();
    }
    if (next !== COMMA) fail(c.at);
    c.at += 1;
    c.skipSpace();
    if (c.due()) yield;
  }
}

/** Where the member before the one at `member` ends: before the comma and white space that lead to it. */
const lastEnd = (text: string, member: number): number => {
  let i = member - 1;
  while (i >= 0 && isSpace(text.charCodeAt(i))) i -= 1;
  return i; // the comma's offset: the batch's text ends before it
};

/** JSON.parse(text) as steps: each `yield` is a place to pause. Throws (SyntaxError) where JSON.parse would, or on anything unexpected. */
export function* manySteps(text: string, sizes: Partial<ManySizes> = {}): Generator<void, unknown> {
  const z = { ...MANY_SIZES, ...sizes };
  const c = new Cursor(text, 0);
  c.skipSpace();
  const first = c.code();
  if (first !== OPEN_ARRAY && first !== OPEN_OBJECT) return JSON.parse(text);
  const value = yield* container(c, z, 0);
  c.skipSpace();
  if (c.at !== text.length) fail(c.at);
  return value;
}
