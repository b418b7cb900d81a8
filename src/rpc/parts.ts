import { isAscii } from 'node:buffer';
/**
 * A text as its parts, in order (joined, they are the text): a head of lanegate's own, a lane's
 * 4 MB body or an upstream's 4 MB result, a tail. Writers take pieces across the parts and never
 * join them whole: joining (or flattening the `+` of them) copies every byte, ~3.4 ms for 3.9 MB
 * on the event loop every lane shares (issue 19).
 */
export type Parts = readonly string[];

/**
 * What a writer sends: text, or the UTF-8 bytes of text as they arrived (a large body's long values,
 * never decoded by the front: large-body.ts). A bytes part is valid UTF-8 and holds no line break.
 */
export type WirePart = string | Buffer;
export type WireParts = readonly WirePart[];

/** Characters of the parts (a bytes part counts its bytes: the same for ASCII, more otherwise). */
export const charsOf = (parts: WireParts): number => {
  let n = 0;
  for (const p of parts) n += p.length;
  return n;
};

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** Whether a byte continues a UTF-8 sequence (10xxxxxx): a cut before it would split a character. */
export const continuesUtf8 = (c: number | undefined): boolean => c !== undefined && (c & 0xc0) === 0x80;

/**
 * Where a piece of a bytes part that starts at `pos` ends, near `end`: never inside a UTF-8
 * character (3 continuation bytes at most). Before `end`, or at `pos` (none of it in this piece)
 * when the piece has text already; past `end`, to the character's end, when it has none.
 */
const byteEnd = (p: Buffer, pos: number, end: number, empty: boolean): number => {
  if (end >= p.length) return p.length;
  let e = end;
  for (let k = 0; k < 3 && e > pos && continuesUtf8(p[e]); k += 1) e -= 1;
  if (e > pos || !empty) return e;
  for (e = end; e < p.length && e - end < 3 && continuesUtf8(p[e]); e += 1);
  return e;
};

/** The text of parts, joined (a short line: bytes parts decoded). */
export const joinWire = (parts: WireParts): string => {
  const one = parts.length === 1 ? parts[0] : undefined;
  return typeof one === 'string' ? one : parts.map((p) => (typeof p === 'string' ? p : p.toString('utf8'))).join('');
};

/**
 * Reads a text's parts as pieces of at most `max` characters (bytes, of a bytes part), never
 * ending a piece inside a surrogate pair or a UTF-8 character.
 */
export class PieceCursor {
  private i = 0;
  private pos = 0;
  /** Characters not yet read. */
  left: number;

  constructor(private readonly parts: WireParts) {
    this.left = charsOf(parts);
  }

  /**
   * The next piece as the parts' own strings, in order, not joined ([] when all was read): a
   * writer hands them to one corked write, and no piece is copied into a fresh string first (a
   * 256 KiB string is a fresh large object, its pages faulted in, on both ends of a link). A lone
   * half would be written as U+FFFD, so a pair is never cut.
   */
  nextParts(max: number): WirePart[] {
    const got: WirePart[] = [];
    // Two units at least: a piece that ends in half a pair gives that half back and is never empty.
    let want = Math.max(2, max);
    let chars = 0;
    while (want > 0 && this.i < this.parts.length) {
      const p = this.parts[this.i] as WirePart;
      const whole = Math.min(this.pos + want, p.length);
      const end = typeof p === 'string' ? whole : byteEnd(p, this.pos, whole, got.length === 0);
      if (end > this.pos)
        got.push(this.pos === 0 && end === p.length ? p : typeof p === 'string' ? p.slice(this.pos, end) : p.subarray(this.pos, end));
      // A bytes part cut short of a character's end: the piece ends here, the character goes next.
      want = end < whole ? 0 : want - (end - this.pos);
      chars += end - this.pos;
      this.left -= end - this.pos;
      if (end >= p.length) {
        this.i += 1;
        this.pos = 0;
      } else this.pos = end;
    }
    const lastPart = got[got.length - 1];
    if (this.left > 0 && chars > 1 && typeof lastPart === 'string' && isHighSurrogate(lastPart.charCodeAt(lastPart.length - 1))) {
      if (lastPart.length > 1) got[got.length - 1] = lastPart.slice(0, -1);
      else got.pop();
      this.left += 1;
      if (this.pos > 0) this.pos -= 1;
      else {
        this.i -= 1;
        this.pos = (this.parts[this.i] as WirePart).length - 1;
      }
    }
    return got;
  }
}

/** Writes strings (and bytes) as one write (corked: a writev), each string in its own encoding; what the last write returned (false: wait for drain). */
export const writeCorked = (out: NodeJS.WritableStream & { cork(): void; uncork(): void }, strings: WireParts): boolean => {
  if (strings.length === 1) {
    const s = strings[0] as WirePart;
    return typeof s === 'string' ? out.write(s, encodingOf(s)) : out.write(s);
  }
  let more = true;
  out.cork();
  let carry = '';
  for (let i = 0; i < strings.length; i += 1) {
    const w = strings[i] as WirePart;
    if (typeof w !== 'string') {
      // Bytes hold whole characters: a high half carried to them has no low half there.
      if (carry) more = out.write(carry, 'utf8');
      carry = '';
      more = out.write(w);
      continue;
    }
    let s = `${carry}${w}`;
    carry = '';
    // A pair split between two strings is written whole (each string encoded alone would write
    // each half as U+FFFD): the high half goes on with the next string.
    if (i + 1 < strings.length && s.length > 0 && isHighSurrogate(s.charCodeAt(s.length - 1))) {
      carry = s.slice(-1);
      s = s.slice(0, -1);
    }
    if (s.length > 0) more = out.write(s, encodingOf(s));
  }
  if (carry) more = out.write(carry, 'utf8');
  out.uncork();
  return more;
};

/** The characters JSON forbids raw in a string (U+0000 to U+001F), one string each. */
const CONTROLS = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i));

/**
 * Whether `s` holds a character below U+0020. One native search per character: ~3x faster than
 * a character-class regex over a long string (measured: 0.06 against 0.15–0.22 ms for 256 KiB).
 */
export const hasControl = (s: string): boolean => {
  for (const c of CONTROLS) if (s.indexOf(c) >= 0) return true;
  return false;
};

/** String.prototype.isWellFormed (Node 20 has it; the ES2024 lib typings are not in this project's target). */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed: () => boolean }).isWellFormed();

/** Whether JSON.stringify would escape anything in `s` (a quote, a backslash, a control character, a lone surrogate). */
export const needsJsonEscape = (s: string): boolean => s.indexOf('"') >= 0 || s.indexOf('\\') >= 0 || hasControl(s) || !wellFormed(s);

/** A piece at least this long is checked for being all ASCII before it is written. */
const ASCII_CHECK_CHARS = 16 * 1024;

/**
 * The encoding to write a piece with: latin1 when it is all ASCII (its UTF-8 bytes, copied ~4x
 * faster than V8 encodes them: 0.28 against 1.19 ms for 3.9 MB here), else utf8. A short piece is
 * written as utf8 without the check. Buffer.byteLength equals the length only for ASCII text.
 */
export const encodingOf = (piece: string): BufferEncoding =>
  piece.length >= ASCII_CHECK_CHARS && Buffer.byteLength(piece) === piece.length ? 'latin1' : 'utf8';

/** Bytes of UTF-8 text as a string: an all-ASCII buffer (a native check) is decoded as latin1, ~6x faster, the same text. */
export const decodeUtf8 = (b: Buffer): string => (b.length >= ASCII_CHECK_CHARS && isAscii(b) ? b.toString('latin1') : b.toString('utf8'));
