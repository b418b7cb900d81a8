import { decodeUtf8, type WirePart, type WireParts } from './parts.js';

/**
 * Reading a text held as its parts (a large answer as the link's slices delivered it) without
 * joining it: joined, a 3.9 MB answer is one fresh 3.9 MB string, ~12–16 ms of the front's event
 * loop on a machine whose fresh pages are slow (issue 19), which another lane's small call waits
 * behind. Each helper here touches only the parts it must, and none copies the whole.
 *
 * A part may be bytes (WirePart): whole UTF-8 characters, never decoded on the way to the lane.
 * The helpers that cut read only a few characters at either end of a large answer, which the
 * link reader keeps as text; a bytes part they must cut into is decoded first (still correct).
 */

/** A part as text (a bytes part decoded: it holds whole characters). */
const textOf = (p: WirePart): string => (typeof p === 'string' ? p : decodeUtf8(p));

/** The first `n` characters of a part, decoding no more of a bytes part than they can take. */
const headOf = (p: WirePart, n: number): string =>
  (typeof p === 'string' ? p : p.toString('utf8', 0, Math.min(p.length, n * 4))).slice(0, n);

/** The last `n` characters of a part, decoding no more of a bytes part than they can take. */
const tailOf = (p: WirePart, n: number): string => {
  if (n <= 0) return '';
  if (typeof p === 'string') return p.slice(Math.max(0, p.length - n));
  // Up to 4 bytes a character; a character cut at the edge decodes as garbage, before the n kept.
  const t = p.toString('utf8', Math.max(0, p.length - n * 4 - 3));
  return t.slice(Math.max(0, t.length - n));
};

/** Characters of a part (a bytes part: at most its bytes, exact when it is ASCII). */
const lengthOf = (p: WirePart): number => (typeof p === 'string' ? p.length : textOf(p).length);

/** Whether the joined text holds `s`: a native search per part, and one across each seam. */
export const partsInclude = (parts: WireParts, s: string): boolean => {
  if (s.length === 0) return true;
  for (let i = 0; i < parts.length; i += 1) if (includesFrom(parts, i, s)) return true;
  return false;
};

/** Whether a match of `s` (not empty) starts in part `i`: within it, or across its seam with the parts after it. */
export const includesFrom = (parts: WireParts, i: number, s: string): boolean => {
  const p = parts[i] as WirePart;
  // A bytes part is searched for the UTF-8 of `s`: the same match, as it holds whole characters.
  if (p.indexOf(s) >= 0) return true;
  if (i + 1 >= parts.length || s.length <= 1) return false;
  // A match that starts in this part and ends in a later one: the seam's characters only.
  return `${tailOf(p, s.length - 1)}${firstChars(parts, i + 1, s.length - 1)}`.indexOf(s) >= 0;
};

/** The first `n` characters of the parts from `from` on. */
const firstChars = (parts: WireParts, from: number, n: number): string => {
  let out = '';
  for (let i = from; i < parts.length && out.length < n; i += 1) out += headOf(parts[i] as WirePart, n - out.length);
  return out;
};

/** The last `n` characters of the joined text (fewer when it is shorter). */
export const lastChars = (parts: WireParts, n: number): string => {
  let out = '';
  for (let i = parts.length - 1; i >= 0 && out.length < n; i -= 1) out = `${tailOf(parts[i] as WirePart, n - out.length)}${out}`;
  return out;
};

/** The parts with their last `k` characters cut off (parts left empty are dropped). */
export const dropLast = (parts: WireParts, k: number): WirePart[] => {
  const out = parts.slice();
  for (let left = k; left > 0 && out.length > 0; ) {
    const p = out[out.length - 1] as WirePart;
    const n = lengthOf(p);
    if (n <= left) {
      out.pop();
      left -= n;
    } else {
      const t = textOf(p);
      out[out.length - 1] = t.slice(0, t.length - left);
      left = 0;
    }
  }
  return out;
};

/** The parts with their first `k` characters cut off (parts left empty are dropped). */
export const dropFirst = (parts: WireParts, k: number): WirePart[] => {
  const out: WirePart[] = [];
  let left = k;
  for (const p of parts) {
    if (left === 0) {
      out.push(p);
      continue;
    }
    const n = lengthOf(p);
    if (left >= n) left -= n;
    else {
      out.push(textOf(p).slice(left));
      left = 0;
    }
  }
  return out;
};

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** The parts without white space at either end of the joined text (String.prototype.trim, for JSON's white space). */
export const trimParts = (parts: WireParts): WirePart[] => {
  // JSON's white space is ASCII: a bytes part is read byte by byte, as a string is unit by unit.
  const codeAt = (p: WirePart, i: number): number => (typeof p === 'string' ? p.charCodeAt(i) : (p[i] as number));
  let head = 0;
  let headParts = 0;
  for (const p of parts) {
    let i = 0;
    while (i < p.length && isSpace(codeAt(p, i))) i += 1;
    if (i < p.length) {
      head = i;
      break;
    }
    headParts += 1;
  }
  if (headParts >= parts.length) return [];
  let tail = 0;
  let tailParts = 0;
  for (let j = parts.length - 1; j >= 0; j -= 1) {
    const p = parts[j] as WirePart;
    let i = p.length;
    while (i > 0 && isSpace(codeAt(p, i - 1))) i -= 1;
    if (i > 0) {
      tail = p.length - i;
      break;
    }
    tailParts += 1;
  }
  // White space is one byte and one unit: cut as such, with the parts that were all white space.
  const cut = (p: WirePart, a: number, b: number): WirePart => (typeof p === 'string' ? p.slice(a, b) : p.subarray(a, b));
  const out = parts.slice(headParts, parts.length - tailParts);
  const last = out.length - 1;
  if (head > 0) out[0] = cut(out[0] as WirePart, head, (out[0] as WirePart).length - (last === 0 ? tail : 0));
  if (tail > 0 && (last > 0 || head === 0)) out[last] = cut(out[last] as WirePart, 0, (out[last] as WirePart).length - tail);
  return out.filter((p) => p.length > 0);
};

/** UTF-8 bytes of the joined text. */
export const byteLengthOf = (parts: WireParts): number => {
  let n = 0;
  for (const p of parts) n += Buffer.byteLength(p);
  return n;
};
