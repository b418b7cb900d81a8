import type { Writable } from 'node:stream';

/**
 * A response line longer than this crosses a lanegate link (front ⇄ host) as slices of this many
 * characters, so one lane's large answer does not hold the pipe while other lanes' answers wait.
 */
export const SLICE_CHARS = 256 * 1024;

/**
 * Marks a slice frame on a link: `\x1e<stream><+|.><text>`, `+` for more to come, `.` for the last.
 * JSON text never starts with a control character, so a slice is never taken for a message.
 */
export const SLICE_MARK = '\u001e';

/** How many large lines are written at once, in turns. */
const ACTIVE_LARGE = 1;

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

interface Big {
  stream: number;
  text: string;
  pos: number;
}

/**
 * Writes newline-delimited lines to a stream. Unsliced (a child's stdin) it writes each line at
 * once, as a pipe writer always did. Sliced (a link), it honours back-pressure and lets small
 * lines pass large ones: a long response goes out a slice at a time, and between two slices every
 * small line waiting goes first, and other long responses take turns, two at a time. So a lane's
 * 30 MB answer costs another lane's small answer at most one slice of pipe time, not the whole
 * answer's. Only responses are sliced: a request or notification keeps its place in the order
 * (a cancellation must never overtake the request it cancels).
 */
export class LineWriter {
  private readonly small: string[] = [];
  private readonly big: Big[] = [];
  private blocked = false;
  private nextStream = 1;
  private turn = 0;

  constructor(
    private readonly out: Writable,
    private readonly sliced: boolean,
  ) {
    if (sliced)
      out.on('drain', () => {
        this.blocked = false;
        this.pump();
      });
  }

  /** Characters waiting here for the pipe, not yet handed to it (kept as lines come and go: read per request). */
  queued = 0;

  write(line: string, response: boolean): void {
    if (!this.sliced) {
      this.out.write(`${line}\n`);
      return;
    }
    if (response && line.length > SLICE_CHARS) {
      this.big.push({ stream: this.nextStream++, text: line, pos: 0 });
      this.queued += line.length;
    } else if (!this.blocked && this.small.length === 0 && this.big.length === 0) {
      this.blocked = !this.out.write(`${line}\n`);
      return;
    } else {
      this.small.push(line);
      this.queued += line.length;
    }
    this.pump();
  }

  private pump(): void {
    while (!this.blocked && !this.out.destroyed) {
      const s = this.small.shift();
      if (s !== undefined) {
        this.queued -= s.length;
        this.blocked = !this.out.write(`${s}\n`);
        continue;
      }
      // Large lines take turns two at a time, the rest waiting in order: the reader holds at most two
      // half-read answers however many are queued (a burst of 44 unread 24 MB answers otherwise had
      // the front joining them all at once).
      const k = Math.min(ACTIVE_LARGE, this.big.length);
      if (k === 0) return;
      const i = this.turn++ % k;
      const b = this.big[i] as Big;
      let end = Math.min(b.pos + SLICE_CHARS, b.text.length);
      // Never cut a surrogate pair: a lone half would be written as U+FFFD.
      if (end < b.text.length && isHighSurrogate(b.text.charCodeAt(end - 1))) end -= 1;
      const last = end >= b.text.length;
      this.blocked = !this.out.write(`${SLICE_MARK}${b.stream}${last ? '.' : '+'}${b.text.slice(b.pos, end)}\n`);
      this.queued -= end - b.pos;
      b.pos = end;
      if (last) this.big.splice(i, 1);
    }
  }
}
