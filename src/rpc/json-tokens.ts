/**
 * Finding a JSON text's string tokens by hopping from quote to quote with native searches, on a
 * string or on a body's bytes (issue 19): JSON's structure is ASCII, and no byte of a multi-byte
 * UTF-8 sequence is below 0x80, so a quote or backslash found by a byte search is that character
 * of the text. One scan for both, so the front's bytes and a host's text are read the same way. Pure.
 */
import { drive, runSteps } from './steps.js';

/** A JSON text as its code units (a string) or bytes (UTF-8), read a unit at a time or searched. */
export interface JsonSource {
  readonly length: number;
  /** The unit at `i` (undefined or NaN outside the text). */
  at(i: number): number | undefined;
  /** The first offset at or after `from` holding `unit`, or -1 (a native search). */
  indexOf(unit: number, from: number): number;
}

/** A string as a JsonSource (made once per text: a scan reads it many times). */
export const textSource = (text: string): JsonSource => ({
  length: text.length,
  at: (i) => text.charCodeAt(i),
  indexOf: (unit, from) => text.indexOf(String.fromCharCode(unit), from),
});

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A string token: the offsets of its opening and closing quotes. */
export interface LongToken {
  open: number;
  close: number;
}

/** Past this many string tokens, a text is not "a few long values": it is read whole. */
const MAX_TOKENS = 50_000;

/** Whether the quote at `q` is escaped (an odd run of backslashes before it). */
const escapedAt = (src: JsonSource, q: number): boolean => {
  let n = 0;
  for (let i = q - 1; i >= 0 && src.at(i) === BACKSLASH; i -= 1) n += 1;
  return n % 2 === 1;
};

/** The closing quote of the string opened at `open`, or -1: a search per quote, never per escape. */
export const closeAt = (src: JsonSource, open: number): number => {
  for (let q = src.indexOf(QUOTE, open + 1); q >= 0; q = src.indexOf(QUOTE, q + 1)) if (!escapedAt(src, q)) return q;
  return -1;
};

/**
 * Where a window of a string's raw text may end at or before `end`: never inside an escape
 * (`\"`, `\\`, `\uXXXX`), so each window is a string's text on its own. The same rule on code
 * units and on bytes (its characters are ASCII): paced-json's windows and the front's byte windows.
 */
export const escapeCut = (src: Pick<JsonSource, 'at'>, start: number, end: number): number => {
  // The last backslash in the 6 units before the cut may begin an escape that runs past it.
  for (let i = end - 1; i >= Math.max(start, end - 6); i -= 1) {
    if (src.at(i) !== BACKSLASH) continue;
    // Is this backslash itself escaped (an odd run before it)? Then it is a plain character.
    let run = 0;
    for (let j = i - 1; j >= start && src.at(j) === BACKSLASH; j -= 1) run += 1;
    if (run % 2 === 1) continue;
    const len = src.at(i + 1) === 0x75 ? 6 : 2;
    return i + len > end ? i : end;
  }
  return end;
};

/** Whether the token closed at `close` is an object key (a colon follows, after white space). */
const isKeyAt = (src: JsonSource, close: number): boolean => {
  for (let i = close + 1; i < src.length; i += 1) {
    const c = src.at(i);
    if (c === 58) return true;
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return false;
};

/** Quote hops a step of a paced token scan (~2 ms here): a text made of escaped quotes is millions of hops. */
const HOPS_A_STEP = 128 * 1024;

/**
 * The token scan, yielding every HOPS_A_STEP quote hops: a 48 MB answer of escaped quotes was one
 * 172-318 ms scan at a host, before its paced parse took its first pause (attack round 38).
 */
function* tokenSteps(src: JsonSource, longValue: number, step: number): Generator<void, LongToken[] | undefined> {
  const found: LongToken[] = [];
  let tokens = 0;
  let hops = 0;
  for (let open = src.indexOf(QUOTE, 0); open >= 0; open = src.indexOf(QUOTE, open + 1)) {
    if (++tokens > MAX_TOKENS) return undefined;
    let close = -1;
    for (let q = src.indexOf(QUOTE, open + 1); q >= 0; q = src.indexOf(QUOTE, q + 1)) {
      if (!escapedAt(src, q)) {
        close = q;
        break;
      }
      if (++hops >= step) {
        hops = 0;
        yield;
      }
    }
    if (close < 0) return undefined;
    if (close - open - 1 >= longValue && !isKeyAt(src, close)) found.push({ open, close });
    open = close;
  }
  return found.length > 0 ? found : undefined;
}

/**
 * The string values at least `longValue` units long (between their quotes), in order; undefined
 * when there are none, when a string does not close, or past MAX_TOKENS tokens.
 */
export const longTokens = (src: JsonSource, longValue: number): LongToken[] | undefined =>
  runSteps(tokenSteps(src, longValue, Number.POSITIVE_INFINITY));

/** longTokens, `pause` every `step` quote hops. */
export const longTokensPaced = (
  src: JsonSource,
  longValue: number,
  pause: () => Promise<void>,
  step = HOPS_A_STEP,
): Promise<LongToken[] | undefined> => drive(tokenSteps(src, longValue, step), pause);
