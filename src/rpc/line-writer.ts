import type { Writable } from 'node:stream';
import { charsOf, encodingOf, type Parts, PieceCursor } from './parts.js';
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

/** A long line being written, by pieces; `ready` false while its parts are still being made. */
interface Big {
  stream: number;
  cursor: PieceCursor;
  ready: boolean;
}

/** A line written while a long request or notification was going out, waiting behind it. */
interface Behind {
  line: Parts | Promise<Parts>;
  response: boolean;
}

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

  /**
   * Writes a line: a string, its parts in order (never joined whole), or the promise of its
   * parts (a message still being serialised in steps, paced-stringify.ts): that line keeps its
   * place, as a long line would (a response lets other lines pass it; anything else holds the
   * lines written after it until it is out).
   */
  write(line: string | Parts | Promise<Parts>, response: boolean): void {
    const short = typeof line === 'string' && line.length <= SLICE_CHARS;
    if (!this.sliced) {
      if (short && !this.ordered) this.out.write(`${line}\n`);
      else this.enter(line, false);
      return;
    }
    if (this.ordered) {
      // Everything written after a long request or notification waits behind it, responses too:
      // a notification's answer must not reach the reader before the notification (a progress or
      // log line of a call, then its result).
      this.waitBehind(line, response);
      return;
    }
    if (!short) {
      this.enter(line, response);
      return;
    }
    if (!this.blocked && this.small.length === 0 && this.big.length === 0) {
      this.blocked = !this.out.write(`${line}\n`);
      return;
    }
    this.small.push(line as string);
    this.queued += (line as string).length;
    this.pump();
  }

  /** A long line (or one still being made) takes its place: a response among `big`, anything else as `ordered`. */
  private enter(line: string | Parts | Promise<Parts>, response: boolean): void {
    if (this.ordered && !this.sliced) {
      this.waitBehind(line, false);
      return;
    }
    const parts = typeof line === 'string' ? [line] : line instanceof Promise ? [] : line;
    const b: Big = { stream: this.sliced ? this.nextStream++ : 0, cursor: new PieceCursor(parts), ready: !(line instanceof Promise) };
    if (response && this.sliced) this.big.push(b);
    else this.ordered = b;
    this.queued += b.cursor.left;
    if (line instanceof Promise) {
      const done = (ps: Parts): void => {
        b.cursor = new PieceCursor(ps);
        b.ready = true;
        this.queued += b.cursor.left;
        this.later();
      };
      // A serialisation that failed leaves an empty line (the reader skips it): never a stuck writer.
      line.then(done, () => done([]));
      return;
    }
    // Its first slice or piece in a turn of its own.
    this.later();
  }

  /** A line written while the ordered one goes out: it waits, in order, and counts as queued (once its parts are made). */
  private waitBehind(line: string | Parts | Promise<Parts>, response: boolean): void {
    this.behind.push({ line: typeof line === 'string' ? [line] : line, response });
    if (!(line instanceof Promise)) this.queued += typeof line === 'string' ? line.length : charsOf(line);
  }

  /** A child's stdin: the long line's next piece, then (once it is whole) the lines behind it. */
  private pumpPieces(): void {
    while (this.ordered?.ready && !this.blocked && !this.scheduled && !this.out.destroyed) {
      const b = this.ordered;
      const piece = b.cursor.next(SLICE_CHARS);
      const last = b.cursor.left === 0;
      const data = last ? `${piece}\n` : piece;
      this.blocked = !this.out.write(data, encodingOf(data));
      this.queued -= piece.length;
      if (!last) {
        this.later();
        return;
      }
      this.ordered = undefined;
      while (this.behind.length > 0 && !this.ordered) {
        const next = (this.behind.shift() as Behind).line;
        if (!(next instanceof Promise)) this.queued -= charsOf(next);
        if (!(next instanceof Promise) && next.length === 1) this.write(next[0] as string, false);
        else this.write(next, false);
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
      // Large lines take turns: the ordered one and ONE response; the other responses wait in order: the
      // reader holds few half-read answers however many are queued (a burst of 44 unread 24 MB
      // answers otherwise had the front joining them all at once). One still being made waits.
      const first = this.big.find((x) => x.ready);
      const turns: Big[] = [];
      if (this.ordered?.ready) turns.push(this.ordered);
      if (first) turns.push(first);
      if (turns.length === 0) return;
      const b = turns[this.turn++ % turns.length] as Big;
      const piece = b.cursor.next(SLICE_CHARS);
      const last = b.cursor.left === 0;
      const frame = `${SLICE_MARK}${b.stream}${last ? '.' : '+'}${piece}\n`;
      this.blocked = !this.out.write(frame, encodingOf(frame));
      this.queued -= piece.length;
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
      if (!(line instanceof Promise)) this.queued -= charsOf(line);
      if (!(line instanceof Promise) && line.length === 1 && (line[0] as string).length <= SLICE_CHARS) {
        this.small.push(line[0] as string);
        this.queued += (line[0] as string).length;
      } else this.enter(line, response);
    }
  }
}
