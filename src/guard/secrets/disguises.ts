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
export const UNITS = new Uint8Array(0x10000);
for (const [a, b] of RANGES) for (let c = a; c <= Math.min(b, 0xffff); c += 1) UNITS[c] = 1;
UNITS.fill(2, 0xd800, 0xdc00);
UNITS.fill(4, 0xdc00, 0xe000);
/** Per lead surrogate (0-1023): whether some character of its block of 1,024 is a disguise (an emoji's is not: no range search). */
const LEADS = new Uint8Array(0x400);
for (const [a, b] of ASTRAL) for (let c = Math.max(a, 0x10000); c <= b; c += 0x400) LEADS[(c - 0x10000) >> 10] = 1;
for (const [, b] of ASTRAL) if (b > 0xffff) LEADS[(b - 0x10000) >> 10] = 1;
const astral = (cp: number): boolean => ASTRAL.some(([a, b]) => cp >= a && cp <= b);

/** `%` may begin a percent-escape, read as the character it encodes (below). */
export const PERCENT = 37;
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

/** What the last escapeAt that found an escape read it as (set with its width: no object per escape). */
let escapeFold = '';
/** What the escape disguiseAt (or escapeAt) last found reads as. */
export const lastEscapeFold = (): string => escapeFold;

/**
 * How many characters a percent-escape at `i` takes (0 when it is none the scan must read through),
 * and what it reads as, in `escapeFold`. Printable ASCII (`%3A` is `:`; attack round 12: a
 * URL-encoded remote `…%3Aghp_…%40github.com` or header `Bearer%20eyJ…` hid the token) and tab and
 * line breaks read as themselves; other controls as nothing; a UTF-8 sequence (`%C2%AD`,
 * `%EF%BD%87`) as its character's fold when that character is a disguise itself (attack round 13).
 */
const escapeAt = (text: string, i: number): number => {
  const b = byteAt(text, i);
  if (b < 0) return 0;
  if ((b >= 0x20 && b <= 0x7e) || b === 0x09 || b === 0x0a || b === 0x0d) {
    escapeFold = String.fromCharCode(b);
    return 3;
  }
  if (b < 0x80) {
    escapeFold = '';
    return 3;
  }
  const n = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 0;
  if (n === 0 || b > 0xf4) return 0;
  let cp = b & (0x7f >> n);
  for (let k = 1; k < n; k += 1) {
    const c = byteAt(text, i + 3 * k);
    if (c < 0x80 || c > 0xbf) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  if (cp < 0x80 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
  const disguise = cp <= 0xffff ? UNITS[cp] === 1 : astral(cp);
  if (!disguise) return 0;
  escapeFold = foldOf(String.fromCodePoint(cp));
  return 3 * n;
};

/** The first percent-escape at or after `from` (native searches for `%`), or -1. */
const nextEscape = (text: string, from: number): number => {
  for (let i = text.indexOf('%', from); i >= 0; i = text.indexOf('%', i + 1)) if (escapeAt(text, i) > 0) return i;
  return -1;
};

/** ASCII text up to this length is also searched for control characters (a regex pass: ~2 ms a MB). */
const CONTROL_CHECK_CHARS = 64 * 1024;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const ASCII_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/** How many UTF-16 units the disguise at `i` takes (1 or 2; 3 for a percent-escape), or 0 when none is there. */
export const disguiseAt = (text: string, i: number): number => {
  const u = UNITS[text.charCodeAt(i)];
  if (u === 1) return 1;
  if (u === 3) return escapeAt(text, i);
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
export const firstDisguise = (text: string): number => {
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
export const foldOf = (ch: string): string => {
  let f = folds.get(ch);
  if (f === undefined) {
    f = HIDDEN.test(ch) ? '' : ch.normalize('NFKC');
    folds.set(ch, f);
  }
  return f;
};

/** A disguised unit's ASCII fold when it is one character (0..127), else -1. Learned once per unit. */
const ONE_FOR_ONE = new Int16Array(0x10000).fill(-2);
export const oneForOne = (c: number): number => {
  let f = ONE_FOR_ONE[c] as number;
  if (f === -2) {
    const s = foldOf(String.fromCharCode(c));
    f = s.length === 1 ? s.charCodeAt(0) : -1;
    ONE_FOR_ONE[c] = f;
  }
  return f;
};
