import type { ByteChunks } from './byte-chunks.js';

/**
 * The long string values of a JSON text found on its UTF-8 bytes (as they arrived, in chunks),
 * never decoding it whole (issue 19). JSON's structure is ASCII, and no byte of a multi-byte UTF-8 sequence is below 0x80, so a
 * quote or a backslash found by a byte search is that character of the text: the same quote hops
 * as paced-json.ts makes on a string, on bytes. Pure.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A long string value: the byte offsets of its opening and closing quotes. */
export interface ByteToken {
  open: number;
  close: number;
}

/** Past this many string tokens, a text is not "a few long values" (paced-json.ts's bound). */
const MAX_TOKENS = 50_000;

/** Whether the quote at `q` is escaped (an odd run of backslashes before it). */
const escapedAt = (b: ByteChunks, q: number): boolean => {
  let n = 0;
  for (let i = q - 1; i >= 0 && b.at(i) === BACKSLASH; i -= 1) n += 1;
  return n % 2 === 1;
};

/** The closing quote of the string opened at `open`, or -1. */
const closeAt = (b: ByteChunks, open: number): number => {
  for (let q = b.indexOf(QUOTE, open + 1); q >= 0; q = b.indexOf(QUOTE, q + 1)) if (!escapedAt(b, q)) return q;
  return -1;
};

/** Whether the token closed at `close` is an object key (a colon follows, after white space). */
const isKeyAt = (b: ByteChunks, close: number): boolean => {
  for (let i = close + 1; i < b.length; i += 1) {
    const c = b.at(i);
    if (c === 58) return true;
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return false;
};

/**
 * The string values at least `longValue` bytes long (between their quotes), in order; undefined
 * when there are none, when a string does not close, or past MAX_TOKENS tokens (then the text is
 * read whole, as before).
 */
export const longByteValues = (b: ByteChunks, longValue: number): ByteToken[] | undefined => {
  const found: ByteToken[] = [];
  let tokens = 0;
  for (let open = b.indexOf(QUOTE); open >= 0; open = b.indexOf(QUOTE, open + 1)) {
    if (++tokens > MAX_TOKENS) return undefined;
    const close = closeAt(b, open);
    if (close < 0) return undefined;
    if (close - open - 1 >= longValue && !isKeyAt(b, close)) found.push({ open, close });
    open = close;
  }
  return found.length > 0 ? found : undefined;
};

/** Whether byte `c` continues a UTF-8 sequence (10xxxxxx): a cut before it would split a character. */
const continues = (c: number | undefined): boolean => c !== undefined && (c & 0xc0) === 0x80;

/**
 * Where a window of a string's raw bytes may end at or before `end` (start < end): never inside
 * a UTF-8 character, nor inside an escape (`\"`, `\\`, `\uXXXX`), so each window is a string's
 * text on its own and decodes to the same characters as in the whole.
 */
export const safeByteCut = (b: ByteChunks, start: number, end: number): number => {
  let cut = end;
  // At most 3 continuation bytes follow a lead byte; in valid UTF-8 the cut lands on a lead or ASCII.
  for (let k = 0; k < 3 && cut > start + 1 && continues(b.at(cut)); k += 1) cut -= 1;
  // The last backslash in the 6 bytes before the cut may begin an escape that runs past it.
  for (let i = cut - 1; i >= Math.max(start, cut - 6); i -= 1) {
    if (b.at(i) !== BACKSLASH) continue;
    let run = 0;
    for (let j = i - 1; j >= start && b.at(j) === BACKSLASH; j -= 1) run += 1;
    if (run % 2 === 1) continue;
    const len = b.at(i + 1) === 0x75 ? 6 : 2;
    return i + len > cut ? i : cut;
  }
  return cut;
};

/**
 * Whether UTF-8 bytes hold a byte below 0x20 (a control character JSON forbids raw in a string),
 * read four at a time with no allocation: a byte b < 0x20 is exactly one where (b - 0x20) borrows
 * into its high bit while b's own high bit is clear (the "has less than" word test). ~19 µs for
 * 64 KiB here, as fast as decoding the bytes and searching the text, without the young garbage.
 */
export const hasControlByte = (b: Uint8Array): boolean => {
  let i = 0;
  for (; i < b.length && ((b.byteOffset + i) & 3) !== 0; i += 1) if ((b[i] as number) < 0x20) return true;
  const words = (b.length - i) >> 2;
  if (words === 0) {
    for (; i < b.length; i += 1) if ((b[i] as number) < 0x20) return true;
    return false;
  }
  const w = new Uint32Array(b.buffer, b.byteOffset + i, words);
  for (let k = 0; k < words; k += 1) {
    const x = w[k] as number;
    if ((((x - 0x20202020) | 0) & ~x & 0x80808080) !== 0) return true;
  }
  for (i += words * 4; i < b.length; i += 1) if ((b[i] as number) < 0x20) return true;
  return false;
};
