import { continuesUtf8 } from './parts.js';
/**
 * A body's bytes as the chunks they arrived in, read as one sequence without copying them into
 * one buffer (issue 19: copying a 3.9 MB body into a buffer of its own faulted ~950 fresh pages
 * per body under the byte flood, ~21 ms of the front's loop each). Offsets are into the whole.
 */

/** Bytes a UTF-8 character led by `c` takes (1 for ASCII and for bytes that lead nothing). */
const seqLength = (c: number): number => (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1);

/**
 * The chunks with every boundary between two UTF-8 characters: a character cut between two
 * chunks moves whole into the second (a copy of that one chunk; text that arrived as ASCII never
 * needs one). Then each chunk decodes alone to its own characters.
 */
export const alignUtf8 = (chunks: readonly Buffer[]): Buffer[] => {
  const out: Buffer[] = [];
  let carry: Buffer | undefined;
  for (const [i, raw] of chunks.entries()) {
    const c = carry ? Buffer.concat([carry, raw]) : raw;
    carry = undefined;
    let keep = c.length;
    if (i < chunks.length - 1) {
      // The last lead byte in the chunk's final 3 bytes, and whether its character ends in the chunk.
      for (let j = c.length - 1; j >= Math.max(0, c.length - 3); j -= 1) {
        const b = c[j] as number;
        if (continuesUtf8(b)) continue;
        if (j + seqLength(b) > c.length) keep = j;
        break;
      }
    }
    if (keep < c.length) carry = c.subarray(keep);
    if (keep > 0) out.push(keep < c.length ? c.subarray(0, keep) : c);
  }
  return out;
};

export class ByteChunks {
  readonly length: number;
  /** Offset of each chunk's first byte in the whole. */
  private readonly starts: number[] = [];
  /** The chunk the last lookup found (reads go mostly forward or stay near). */
  private last = 0;

  constructor(private readonly chunks: readonly Buffer[]) {
    let n = 0;
    for (const c of chunks) {
      this.starts.push(n);
      n += c.length;
    }
    this.length = n;
  }

  /** The chunk holding offset `i` (0 <= i < length). */
  private chunkOf(i: number): number {
    const s = this.starts;
    let k = this.last;
    if (!(i >= (s[k] as number) && (k + 1 >= s.length || i < (s[k + 1] as number)))) {
      let lo = 0;
      let hi = s.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((s[mid] as number) <= i) lo = mid;
        else hi = mid - 1;
      }
      k = lo;
    }
    this.last = k;
    return k;
  }

  /** Where the chunk holding offset `i` ends (a window that stops there is a view, never a copy). */
  chunkEnd(i: number): number {
    if (i < 0 || i >= this.length) return this.length;
    const k = this.chunkOf(i);
    return (this.starts[k] as number) + (this.chunks[k] as Buffer).length;
  }

  /** The byte at `i`, or undefined outside the bytes. */
  at(i: number): number | undefined {
    if (i < 0 || i >= this.length) return undefined;
    const k = this.chunkOf(i);
    return (this.chunks[k] as Buffer)[i - (this.starts[k] as number)];
  }

  /** The first offset at or after `from` holding `byte`, or -1 (a native search per chunk). */
  indexOf(byte: number, from = 0): number {
    if (from >= this.length) return -1;
    for (let k = this.chunkOf(Math.max(0, from)); k < this.chunks.length; k += 1) {
      const start = this.starts[k] as number;
      const j = (this.chunks[k] as Buffer).indexOf(byte, Math.max(0, from - start));
      if (j >= 0) return start + j;
    }
    return -1;
  }

  /** Bytes [a, b) as views of the chunks, in order (nothing copied). */
  slices(a: number, b: number): Buffer[] {
    const out: Buffer[] = [];
    if (b <= a) return out;
    for (let k = this.chunkOf(a); k < this.chunks.length; k += 1) {
      const start = this.starts[k] as number;
      const c = this.chunks[k] as Buffer;
      if (start >= b) break;
      out.push(c.subarray(Math.max(0, a - start), Math.min(c.length, b - start)));
    }
    return out;
  }

  /** Bytes [a, b) as one buffer: a view when they lie in one chunk, else a copy. */
  bytes(a: number, b: number): Buffer {
    const s = this.slices(a, b);
    return s.length === 1 ? (s[0] as Buffer) : Buffer.concat(s);
  }

  /** Each chunk (for checks that hold chunk by chunk, such as valid UTF-8 once aligned). */
  each(): readonly Buffer[] {
    return this.chunks;
  }
}
