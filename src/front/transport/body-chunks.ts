/**
 * A request body's bytes as they arrive, kept without copying the large reads: a read of
 * SMALL_READ bytes or more is kept as it is (the 64 KiB reads of a fast client), and so is the
 * first read (nearly every body is one small read: no block is made for it). Smaller ones after it
 * are copied, in order, into shared blocks of BLOCK bytes. A client that trickles its body a byte
 * per read cannot make the front hold a Buffer object per byte (a 4 MiB body was 4 million of
 * them, ~200 bytes each, and as many native searches to scan it); the bytes held stay within a
 * block of what was read.
 */
const SMALL_READ = 16 * 1024;
const BLOCK = 64 * 1024;

export class BodyChunks {
  readonly chunks: Buffer[] = [];
  private block: Buffer | undefined;
  /** The block's bytes [from, used) are not yet in `chunks`. */
  private from = 0;
  private used = 0;

  add(chunk: Buffer): void {
    if (chunk.length >= SMALL_READ || (this.chunks.length === 0 && !this.block)) {
      this.flush();
      this.chunks.push(chunk);
      return;
    }
    if (!this.block || this.used + chunk.length > this.block.length) {
      this.flush();
      this.block = Buffer.allocUnsafeSlow(BLOCK);
      this.from = 0;
      this.used = 0;
    }
    chunk.copy(this.block, this.used);
    this.used += chunk.length;
  }

  /** The chunks, all of them (the block's bytes so far included). */
  done(): Buffer[] {
    this.flush();
    return this.chunks;
  }

  /** Lets everything go (a body refused). */
  clear(): void {
    this.chunks.length = 0;
    this.block = undefined;
  }

  private flush(): void {
    if (this.block && this.used > this.from) {
      this.chunks.push(this.block.subarray(this.from, this.used));
      this.from = this.used;
    }
  }
}
