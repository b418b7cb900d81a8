import type { Writable } from 'node:stream';
import { onTurnFirst } from './turn.js';

/**
 * A line longer than this crosses a lanegate link (front ⇄ host) as slices of this many
 * characters, and goes to a child's stdin in pieces of this many, a piece a turn: so one lane's
 * large message holds neither the pipe nor the event loop while other lanes' messages wait.
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

/** A line written while a long request or notification was going out, waiting behind it. */
interface Behind {
  line: string;
  response: boolean;
}

/** The end of the piece of `b` that starts at b.pos: SLICE_CHARS on, never inside a surrogate pair. */
const pieceEnd = (b: Big): number => {
  let end = Math.min(b.pos + SLICE_CHARS, b.text.length);
  // A lone half would be written as U+FFFD.
  if (end < b.text.length && isHighSurrogate(b.text.charCodeAt(end - 1))) end -= 1;
  return end;
};

/**
 * Writes newline-delimited lines to a stream. Sliced (a link), it honours back-pressure and lets
 * small lines pass large ones: a long line goes out a slice at a time, and between two slices
 * every small line waiting goes first. A long response takes turns with the others; a long
 * request or notification keeps its place in the order: every line written after it waits until
 * its last slice is out (a cancellation must never overtake the request it cancels, nor a result
 * the progress or log line of its call that was written before it). Unsliced (a child's stdin, which reads JSON lines only), a long
 * line goes out in pieces, a piece a turn of the event loop (or a drain), and every line written
 * after it waits, in order, until it is whole: the child reads the same bytes as before.
 * So a lane's 30 MB message costs another lane's small one at most a slice of pipe and loop time.
 */
export class LineWriter {
  private readonly small: string[] = [];
  private readonly big: Big[] = [];
  /** The long line that is not a response being written now (in order), and every line written after it. */
  private ordered: Big | undefined;
  private readonly behind: Behind[] = [];
  private blocked = false;
  private scheduled = false;
  private nextStream = 1;
  private turn = 0;

  constructor(
    private readonly out: Writable,
    private readonly sliced: boolean,
  ) {
    out.on('drain', () => {
      this.blocked = false;
      this.pump();
    });
  }

  /** Characters waiting here for the pipe, not yet handed to it (kept as lines come and go: read per request). */
  queued = 0;

  write(line: string, response: boolean): void {
    if (!this.sliced) {
      this.writeUnsliced(line);
      return;
    }
    if (this.ordered) {
      // Everything written after a long request or notification waits behind it, responses too:
      // a notification's answer must not reach the reader before the notification (a progress or
      // log line of a call, then its result).
      this.behind.push({ line, response });
      this.queued += line.length;
    } else if (line.length > SLICE_CHARS) {
      const b = { stream: this.nextStream++, text: line, pos: 0 };
      if (response) this.big.push(b);
      else this.ordered = b;
      this.queued += line.length;
      // Its first slice in a turn of its own (as in writeUnsliced).
      this.later();
      return;
    } else if (!this.blocked && this.small.length === 0 && this.big.length === 0) {
      this.blocked = !this.out.write(`${line}\n`);
      return;
    } else {
      this.small.push(line);
      this.queued += line.length;
    }
    this.pump();
  }

  private writeUnsliced(line: string): void {
    if (this.ordered || line.length > SLICE_CHARS) {
      if (this.ordered) this.behind.push({ line, response: false });
      else this.ordered = { stream: 0, text: line, pos: 0 };
      this.queued += line.length;
      // Its first piece in a turn of its own: reading a serialiser's output flattens it (a copy
      // of the whole line), a step apart from the serialisation that made it.
      this.later();
      return;
    }
    this.out.write(`${line}\n`);
  }

  /** A child's stdin: the long line's next piece, then (once it is whole) the lines behind it. */
  private pumpPieces(): void {
    while (this.ordered && !this.blocked && !this.scheduled && !this.out.destroyed) {
      const b = this.ordered;
      const end = pieceEnd(b);
      const last = end >= b.text.length;
      this.blocked = !this.out.write(last ? `${b.text.slice(b.pos, end)}\n` : b.text.slice(b.pos, end));
      this.queued -= end - b.pos;
      b.pos = end;
      if (!last) {
        this.later();
        return;
      }
      this.ordered = undefined;
      while (this.behind.length > 0 && !this.ordered) {
        const next = (this.behind.shift() as Behind).line;
        this.queued -= next.length;
        this.writeUnsliced(next);
      }
    }
  }

  /**
   * The next piece in a later loop iteration, so other lanes' messages are handled in between.
   * First in turn.ts's queue (onTurnFirst): every line written after a long one waits for its
   * pieces (the front's liveness ping to a host among them), and the queue's other steps can be
   * seconds of other messages' scan passes (the same head-of-line wait peer.ts avoids).
   */
  private later(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    onTurnFirst(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (!this.sliced) {
      this.pumpPieces();
      return;
    }
    while (!this.blocked && !this.out.destroyed) {
      const s = this.small.shift();
      if (s !== undefined) {
        this.queued -= s.length;
        this.blocked = !this.out.write(`${s}\n`);
        continue;
      }
      // Large lines take turns, the ordered one among them; the other responses wait in order: the
      // reader holds few half-read answers however many are queued (a burst of 44 unread 24 MB
      // answers otherwise had the front joining them all at once).
      const turns = this.ordered ? [this.ordered, ...this.big.slice(0, ACTIVE_LARGE)] : this.big.slice(0, ACTIVE_LARGE);
      if (turns.length === 0) return;
      const b = turns[this.turn++ % turns.length] as Big;
      const end = pieceEnd(b);
      const last = end >= b.text.length;
      this.blocked = !this.out.write(`${SLICE_MARK}${b.stream}${last ? '.' : '+'}${b.text.slice(b.pos, end)}\n`);
      this.queued -= end - b.pos;
      b.pos = end;
      if (!last) continue;
      if (b === this.ordered) this.releaseBehind();
      else this.big.splice(this.big.indexOf(b), 1);
    }
  }

  /** The ordered line is out: what waited behind it goes on, in order, up to the next long one. */
  private releaseBehind(): void {
    this.ordered = undefined;
    while (this.behind.length > 0 && !this.ordered) {
      const { line, response } = this.behind.shift() as Behind;
      if (line.length <= SLICE_CHARS) this.small.push(line);
      else if (response) this.big.push({ stream: this.nextStream++, text: line, pos: 0 });
      else this.ordered = { stream: this.nextStream++, text: line, pos: 0 };
    }
  }
}
