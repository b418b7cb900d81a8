import { DISGUISES } from './disguise-table.js';

/**
 * Characters that render as nothing in most terminals and UIs, besides the default-ignorable ones of
 * the table: C0 controls but tab, line feed and carriage return; DEL and the C1 controls; private
 * use (planes 0, 15 and 16); noncharacters (every plane); the blank Braille pattern (U+2800) and
 * the musical null notehead (U+1D159); the interlinear annotation marks and the object
 * replacement character. Attack rounds 12 and 13: each of them inside a token hid it, and a
 * consumer that strips them gets the token back. Read as nothing, like the table's.
 */
const INVISIBLE = [
  '0-8 b-c e-1f 7f-9f 2800 e000-f8ff fdd0-fdef fff9-fffc fffe-ffff 1d159 f0000-ffffd 100000-10fffd',
  ...Array.from({ length: 16 }, (_, p) => `${(p + 1).toString(16)}fffe-${(p + 1).toString(16)}ffff`),
].join(' ');

const RANGES = `${DISGUISES} ${INVISIBLE}`.split(' ').map((r) => {
  const [a = '0', b = a] = r.split('-');
  return [Number.parseInt(a, 16), Number.parseInt(b, 16)] as const;
});
const ASTRAL = RANGES.filter(([, b]) => b > 0xffff);
/**
 * Per UTF-16 unit: 1, a disguise of its own; 2, a lead surrogate (a pair may be a disguise, a lone
 * one is); 4, a trail surrogate (a lone one is).
 */
const UNITS = new Uint8Array(0x10000);
for (const [a, b] of RANGES) for (let c = a; c <= Math.min(b, 0xffff); c += 1) UNITS[c] = 1;
UNITS.fill(2, 0xd800, 0xdc00);
UNITS.fill(4, 0xdc00, 0xe000);
/** Per lead surrogate (0-1023): whether some character of its block of 1,024 is a disguise (an emoji's is not: no range search). */
const LEADS = new Uint8Array(0x400);
for (const [a, b] of ASTRAL) for (let c = Math.max(a, 0x10000); c <= b; c += 0x400) LEADS[(c - 0x10000) >> 10] = 1;
for (const [, b] of ASTRAL) if (b > 0xffff) LEADS[(b - 0x10000) >> 10] = 1;
const astral = (cp: number): boolean => ASTRAL.some(([a, b]) => cp >= a && cp <= b);

/** `%` may begin a percent-escape, read as the character it encodes (below). */
const PERCENT = 37;
UNITS[PERCENT] = 3;

const hexAt = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  return l >= 97 && l <= 102 ? l - 87 : -1;
};

/** The byte a `%XX` at `i` encodes, or -1. */
const byteAt = (text: string, i: number): number => {
  if (text.charCodeAt(i) !== PERCENT) return -1;
  const hi = hexAt(text, i + 1);
  const lo = hi < 0 ? -1 : hexAt(text, i + 2);
  return lo < 0 ? -1 : hi * 16 + lo;
};

/**
 * What a percent-escape at `i` reads as, and how many characters it takes; undefined when it is
 * none the scan must read through. Printable ASCII (`%3A` is `:`; attack round 12: a URL-encoded
 * remote `…%3Aghp_…%40github.com` or header `Bearer%20eyJ…` hid the token) and tab and line
 * breaks read as themselves; other controls as nothing; a UTF-8 sequence (`%C2%AD`, `%EF%BD%87`)
 * as its character's fold when that character is a disguise itself (attack round 13).
 */
const escapeAt = (text: string, i: number): { width: number; fold: string } | undefined => {
  const b = byteAt(text, i);
  if (b < 0) return undefined;
  if (b >= 0x20 && b <= 0x7e) return { width: 3, fold: String.fromCharCode(b) };
  if (b === 0x09 || b === 0x0a || b === 0x0d) return { width: 3, fold: String.fromCharCode(b) };
  if (b < 0x80) return { width: 3, fold: '' };
  const n = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 0;
  if (n === 0 || b > 0xf4) return undefined;
  let cp = b & (0x7f >> n);
  for (let k = 1; k < n; k += 1) {
    const c = byteAt(text, i + 3 * k);
    if (c < 0x80 || c > 0xbf) return undefined;
    cp = (cp << 6) | (c & 0x3f);
  }
  if (cp < 0x80 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return undefined;
  const disguise = cp <= 0xffff ? UNITS[cp] === 1 : astral(cp);
  return disguise ? { width: 3 * n, fold: foldOf(String.fromCodePoint(cp)) } : undefined;
};

/** The first percent-escape at or after `from` (native searches for `%`), or -1. */
const nextEscape = (text: string, from: number): number => {
  for (let i = text.indexOf('%', from); i >= 0; i = text.indexOf('%', i + 1)) if (escapeAt(text, i)) return i;
  return -1;
};

/** ASCII text up to this length is also searched for control characters (a regex pass: ~2 ms a MB). */
const CONTROL_CHECK_CHARS = 64 * 1024;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const ASCII_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/** How many UTF-16 units the disguise at `i` takes (1 or 2; 3 for a percent-escape), or 0 when none is there. */
const disguiseAt = (text: string, i: number): number => {
  const u = UNITS[text.charCodeAt(i)];
  if (u === 1) return 1;
  if (u === 3) return escapeAt(text, i)?.width ?? 0;
  if (u === 4) {
    // A trail surrogate after its lead is read with it; alone, it is a disguise.
    const p = text.charCodeAt(i - 1);
    return p >= 0xd800 && p <= 0xdbff ? 0 : 1;
  }
  if (u !== 2) return 0;
  const cp = text.codePointAt(i) ?? 0;
  if (cp <= 0xffff) return 1;
  return LEADS[(cp - 0x10000) >> 10] === 1 && astral(cp) ? 2 : 0;
};

/** Where the first disguise at or after `from` is, or -1. */
const nextDisguise = (text: string, from: number): number => {
  for (let i = from; i < text.length; i += 1) if (UNITS[text.charCodeAt(i)] !== 0 && disguiseAt(text, i) > 0) return i;
  return -1;
};

/** Below this length a string is looked up a unit at a time; from it, first checked for ASCII natively (measured: 14 ns). */
const SHORT = 16;

/**
 * Where the first disguise is, or -1: ASCII text (nearly all of it) is told natively, without a
 * look-up a unit (searched for `%` natively, and up to CONTROL_CHECK_CHARS for control characters).
 */
const firstDisguise = (text: string): number => {
  if (text.length < SHORT || Buffer.byteLength(text, 'utf8') !== text.length) return nextDisguise(text, 0);
  if (text.length <= CONTROL_CHECK_CHARS && ASCII_CONTROL.test(text)) return nextDisguise(text, 0);
  return nextEscape(text, 0);
};

/**
 * Whether the text holds a character the scan must not see as it is: one that renders as nothing
 * (a format, default-ignorable or control character, private use, a noncharacter), one whose NFKC
 * form is ASCII (`ｇｈｐ＿`, `𝐀`, `ﬁ`, `²`), or a percent-escape of a printable ASCII character.
 * A short string costs one table look-up a character; a long ASCII one, one native pass (an eighth
 * of a nanosecond a character); other long text, the look-ups.
 */
export const disguised = (text: string): boolean => firstDisguise(text) >= 0;

const HIDDEN = /^[\p{Cf}\p{DI}\p{Cc}\p{Co}\p{Cs}\p{Noncharacter_Code_Point}\u2800\u{1d159}\ufff9-\ufffc]$/u;
const folds = new Map<string, string>();
/** What one disguise reads as: nothing, or its ASCII NFKC form. Memoised (a few thousand at most). */
const foldOf = (ch: string): string => {
  let f = folds.get(ch);
  if (f === undefined) {
    f = HIDDEN.test(ch) ? '' : ch.normalize('NFKC');
    folds.set(ch, f);
  }
  return f;
};

/**
 * Where each character of the normalised text came from. Pieces, in order: a run copied with a fixed
 * offset (normalised i came from original i - delta), or one folded character (every character it
 * became came from its whole original range). Held only for a string that needed normalising; its
 * size follows the disguised characters, not the string.
 */
export class IndexMap {
  private readonly at: number[] = [];
  private readonly from: number[] = [];
  /** -1 for a run; else the end, in the original, of the one character this piece folded. */
  private readonly to: number[] = [];

  run(n: number, o: number): void {
    const last = this.at.length - 1;
    if (last >= 0 && this.to[last] === -1 && (this.from[last] as number) - (this.at[last] as number) === o - n) return;
    this.push(n, o, -1);
  }

  folded(n: number, o: number, oEnd: number): void {
    this.push(n, o, oEnd);
  }

  /** The original range of normalised [start, end), end > start: from its first character's start to its last's end. */
  range(start: number, end: number): [number, number] {
    const p = this.piece(start);
    const q = this.piece(end - 1);
    const s = this.to[p] === -1 ? (this.from[p] as number) + start - (this.at[p] as number) : (this.from[p] as number);
    const e = this.to[q] === -1 ? (this.from[q] as number) + end - (this.at[q] as number) : (this.to[q] as number);
    return [s, e];
  }

  private push(n: number, o: number, oEnd: number): void {
    this.at.push(n);
    this.from.push(o);
    this.to.push(oEnd);
  }

  /** The last piece starting at or before normalised index i (binary search). */
  private piece(i: number): number {
    let lo = 0;
    let hi = this.at.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.at[mid] as number) <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** Where a range of a reading came from in the text it was read from. */
export interface RangeMap {
  range(start: number, end: number): [number, number];
}

/** A string as the scan reads it, and how to find the original of what it finds there. */
export interface Normalised {
  text: string;
  map: RangeMap;
}

/** A disguised unit's ASCII fold when it is one character (0..127), else -1. Learned once per unit. */
const ONE_FOR_ONE = new Int16Array(0x10000).fill(-2);
const oneForOne = (c: number): number => {
  let f = ONE_FOR_ONE[c] as number;
  if (f === -2) {
    const s = foldOf(String.fromCharCode(c));
    f = s.length === 1 ? s.charCodeAt(0) : -1;
    ONE_FOR_ONE[c] = f;
  }
  return f;
};

const grow = (units: Uint16Array, need: number): Uint16Array => {
  const bigger = new Uint16Array(Math.max(need, units.length * 2));
  bigger.set(units);
  return bigger;
};

/** The first n UTF-16 units as a string (natively where the machine is little-endian, as nearly all are). */
const fromUnits = (units: Uint16Array, n: number): string => {
  if (LITTLE_ENDIAN) return Buffer.from(units.buffer, units.byteOffset, n * 2).toString('utf16le');
  let s = '';
  for (let i = 0; i < n; i += 4096) s += String.fromCharCode(...units.subarray(i, Math.min(n, i + 4096)));
  return s;
};
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The text with hidden characters removed, compatibility forms folded to ASCII and percent-escapes
 * of printable ASCII decoded, or undefined when it holds none (nothing to do). One pass, linear in
 * the string.
 */
export const normalise = (text: string): Normalised | undefined => {
  const first = firstDisguise(text);
  if (first < 0) return undefined;
  const map = new IndexMap();
  let out: Uint16Array = new Uint16Array(text.length + 64);
  let n = 0;
  // The run being copied: whether there is one, and its offset (original index - normalised index).
  let inRun = false;
  let delta = 0;
  for (let o = 0; o < text.length; ) {
    const c = text.charCodeAt(o);
    const width = UNITS[c] === 0 ? 0 : disguiseAt(text, o);
    const one = width === 1 ? oneForOne(c) : -1;
    if (width === 0 || one >= 0) {
      // Copied as it is, or folded one for one (full-width ASCII): the run's offset holds.
      if (!inRun || o - n !== delta) {
        map.run(n, o);
        inRun = true;
        delta = o - n;
      }
      out[n] = width === 0 ? c : one;
      n += 1;
      o += 1;
      // The plain units after it, in a tight loop.
      while (o < text.length) {
        const d = text.charCodeAt(o);
        if (UNITS[d] !== 0) break;
        out[n] = d;
        n += 1;
        o += 1;
      }
      continue;
    }
    const f = c === PERCENT ? (escapeAt(text, o)?.fold ?? '') : foldOf(text.slice(o, o + width));
    if (f.length > 0) {
      if (n + f.length > out.length) out = grow(out, n + f.length);
      map.folded(n, o, o + width);
      for (let j = 0; j < f.length; j += 1) out[n + j] = f.charCodeAt(j);
      n += f.length;
    }
    inRun = false;
    o += width;
  }
  return { text: fromUnits(out, n), map };
};

/** Readings of one string at most: a layer of encoding each (`%2567` is `%67` is `g`; `％６７` is `%67`). */
const READINGS = 3;

/**
 * `normalise`, read again while a reading still holds a disguise (attack round 13: double
 * percent-encoding and a full-width percent sign hid a token), at most READINGS times; its map leads
 * from the last reading back to the original.
 */
export const readThrough = (text: string): Normalised | undefined => {
  let n = normalise(text);
  // A reading is ASCII where it changed: only a `%` there can make another (a decoded or folded one).
  for (let k = 1; n?.text.includes('%') && k < READINGS; k += 1) {
    const next = normalise(n.text);
    if (!next) break;
    const outer = n.map;
    const inner = next.map;
    n = {
      text: next.text,
      map: {
        range: (start, end) => {
          const [a, b] = inner.range(start, end);
          return outer.range(a, b);
        },
      },
    };
  }
  return n;
};
