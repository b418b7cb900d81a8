/** Pieces the first chunk of an IndexMap holds (12 bytes each); each next one twice as many, up to CHUNK. */
const FIRST_CHUNK = 16;
const CHUNK = 8192;

/**
 * Where each character of the normalised text came from. Pieces, in order: a run copied with a fixed
 * offset (normalised i came from original i - delta), or one folded character (every character it
 * became came from its whole original range). Held only for a string that needed normalising; its
 * size follows the disguised characters, not the string.
 *
 * Stored as (at, from, to) triples in fixed chunks of typed arrays: a JS array's push cost ~0.6 µs a
 * piece and 8 bytes a number (attack round 36: 8 MB of `%252567%` took 2 s of pushes), and one
 * array grown by doubling copies all it holds in one block (100-200 ms at millions of pieces).
 */
export class IndexMap {
  private readonly chunks: Int32Array[] = [];
  /** The normalised index each chunk's first piece starts at. */
  private readonly firsts: number[] = [];
  private last = new Int32Array(0);
  /** Pieces in the last chunk. */
  private fill = 0;

  run(n: number, o: number): void {
    const k = (this.fill - 1) * 3;
    if (this.fill > 0 && this.last[k + 2] === -1 && (this.last[k + 1] as number) - (this.last[k] as number) === o - n) return;
    this.push(n, o, -1);
  }

  folded(n: number, o: number, oEnd: number): void {
    this.push(n, o, oEnd);
  }

  /** The original range of normalised [start, end), end > start: from its first character's start to its last's end. */
  range(start: number, end: number): [number, number] {
    const [c, p] = this.piece(start);
    const [d, q] = this.piece(end - 1);
    const s = c[p + 2] === -1 ? (c[p + 1] as number) + start - (c[p] as number) : (c[p + 1] as number);
    const e = d[q + 2] === -1 ? (d[q + 1] as number) + end - (d[q] as number) : (d[q + 2] as number);
    return [s, e];
  }

  private push(n: number, o: number, oEnd: number): void {
    if (this.fill * 3 === this.last.length) {
      // Small first (most maps are of a short string), doubling to CHUNK.
      this.last = new Int32Array((this.last.length === 0 ? FIRST_CHUNK : Math.min(CHUNK, (this.last.length / 3) * 2)) * 3);
      this.chunks.push(this.last);
      this.firsts.push(n);
      this.fill = 0;
    }
    const k = this.fill * 3;
    this.last[k] = n;
    this.last[k + 1] = o;
    this.last[k + 2] = oEnd;
    this.fill += 1;
  }

  /** The last piece starting at or before normalised index i: its chunk and offset there (binary searches). */
  private piece(i: number): [Int32Array, number] {
    let lo = 0;
    let hi = this.firsts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.firsts[mid] as number) <= i) lo = mid;
      else hi = mid - 1;
    }
    const chunk = this.chunks[lo] as Int32Array;
    let a = 0;
    let b = (lo === this.chunks.length - 1 ? this.fill : chunk.length / 3) - 1;
    while (a < b) {
      const mid = (a + b + 1) >> 1;
      if ((chunk[mid * 3] as number) <= i) a = mid;
      else b = mid - 1;
    }
    return [chunk, a * 3];
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
