import { charsOf, type Parts, type WireParts } from './parts.js';

/**
 * Reading a text held as its parts (a large answer as the link's slices delivered it) without
 * joining it: joined, a 3.9 MB answer is one fresh 3.9 MB string, ~12–16 ms of the front's event
 * loop on a machine whose fresh pages are slow (issue 19), which another lane's small call waits
 * behind. Each helper here touches only the parts it must, and none copies the whole.
 */

/** Whether the joined text holds `s`: a native search per part, and one across each seam. */
export const partsInclude = (parts: Parts, s: string): boolean => {
  if (s.length === 0) return true;
  for (let i = 0; i < parts.length; i += 1) {
    const p = parts[i] as string;
    if (p.indexOf(s) >= 0) return true;
    if (i + 1 < parts.length && s.length > 1) {
      // A match that starts in this part and ends in a later one: the seam's characters only.
      const seam = `${p.slice(-(s.length - 1))}${firstChars(parts, i + 1, s.length - 1)}`;
      if (seam.indexOf(s) >= 0) return true;
    }
  }
  return false;
};

/** The first `n` characters of the parts from `from` on. */
const firstChars = (parts: Parts, from: number, n: number): string => {
  let out = '';
  for (let i = from; i < parts.length && out.length < n; i += 1) out += (parts[i] as string).slice(0, n - out.length);
  return out;
};

/** The last `n` characters of the joined text (fewer when it is shorter). */
export const lastChars = (parts: Parts, n: number): string => {
  let out = '';
  for (let i = parts.length - 1; i >= 0 && out.length < n; i -= 1) {
    const p = parts[i] as string;
    out = `${p.slice(Math.max(0, p.length - (n - out.length)))}${out}`;
  }
  return out;
};

/** The parts with their last `k` characters cut off (parts left empty are dropped). */
export const dropLast = (parts: Parts, k: number): string[] => {
  const out = parts.slice();
  for (let left = k; left > 0 && out.length > 0; ) {
    const p = out[out.length - 1] as string;
    if (p.length <= left) {
      out.pop();
      left -= p.length;
    } else {
      out[out.length - 1] = p.slice(0, p.length - left);
      left = 0;
    }
  }
  return out;
};

/** The parts with their first `k` characters cut off (parts left empty are dropped). */
export const dropFirst = (parts: Parts, k: number): string[] => {
  const out: string[] = [];
  let left = k;
  for (const p of parts) {
    if (left >= p.length) left -= p.length;
    else {
      out.push(left > 0 ? p.slice(left) : p);
      left = 0;
    }
  }
  return out;
};

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** The parts without white space at either end of the joined text (String.prototype.trim, for JSON's white space). */
export const trimParts = (parts: Parts): string[] => {
  let head = 0;
  for (const p of parts) {
    let i = 0;
    while (i < p.length && isSpace(p.charCodeAt(i))) i += 1;
    head += i;
    if (i < p.length) break;
  }
  const total = charsOf(parts);
  if (head >= total) return [];
  let tail = 0;
  for (let j = parts.length - 1; j >= 0; j -= 1) {
    const p = parts[j] as string;
    let i = p.length;
    while (i > 0 && isSpace(p.charCodeAt(i - 1))) i -= 1;
    tail += p.length - i;
    if (i > 0) break;
  }
  return dropLast(dropFirst(parts, head), tail);
};

/** UTF-8 bytes of the joined text. */
export const byteLengthOf = (parts: WireParts): number => {
  let n = 0;
  for (const p of parts) n += Buffer.byteLength(p);
  return n;
};
