import type { Id } from './jsonrpc.js';
import type { Writable } from 'node:stream';
import { charsOf, PieceCursor, type WireParts, writeCorked } from './parts.js';
import { onTurnFirst } from './turn.js';

/**
 * A line longer than this crosses a lanegate link (front ⇄ host) as slices of this many
 * characters, and goes to a child's stdin in pieces of this many, a piece a turn: so one lane's
 * large message holds neither the pipe nor the event loop while other lanes' messages wait.
 *
 * Under 128 KiB, V8's largest object in its young generation, so a slice decoded at the other end
 * is a string in pages V8 keeps using. At 256 KiB each one was a large object, mapped afresh and
 * faulted in a page at a time: 44% of the front's page faults under the byte flood (perf, issue
 * 19). At 120 KiB the front faulted 41% fewer pages and the host 21% fewer over the same bench,
 * and a 3.9 MB echo took ~7% less time end to end.
 */
export const SLICE_CHARS = 120 * 1024;

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

/**
 * The order a line keeps (see LineWriter): a key (a lane's name on a link) keeps it among the lines
 * of that key; none (BARRIER) keeps it among all lines, as every line kept it before keys.
 */
export type OrderKey = string | undefined;
const BARRIER = Symbol('barrier');
type Channel = string | typeof BARRIER;

/** A line written while a long request or notification of its order was going out, waiting behind it. */
interface Behind {
  line: WireParts | Promise<WireParts>;
  response: boolean;
  channel: Channel;
  /** A request's id: it may be withdrawn while it waits (withdraw). */
  id?: Id;
}

/** The longest key a slice frame carries (line-reader.ts reads no longer one). */
export const FRAME_KEY_MAX = 200;

const FRAMEABLE = new RegExp(`^[\\x21-\\x7e]{1,${FRAME_KEY_MAX}}$`);

/** A key a slice frame can carry: printable, no frame separator (a lane name always is). */
const frameKey = (key: OrderKey): Channel => (key !== undefined && FRAMEABLE.test(key) ? key : BARRIER);

/**
 * Writes newline-delimited lines to a stream. Sliced (a link), it honours back-pressure and lets
 * small lines pass large ones: a long line goes out a slice at a time, and between two slices
 * every small line waiting goes first. A long response takes turns with the others; a long
 * request or notification keeps its place in its order: every line of the same key written after
 * it (and every line without a key) waits until its last slice is out (a cancellation must never
 * overtake the request it cancels, nor a result the progress or log line of its call that was
 * written before it). Lines of OTHER keys pass it (issue 19: another lane's small call waited
 * behind each ~4 MB request of a lane's flood). A line without a key waits for every long line
 * before it and holds every line after it. The last slice of a keyed line carries its key, so the
 * reader keeps the same order (LinePeer). Unsliced (a child's stdin, which reads JSON lines only), keys are not read: a long
 * line goes out in pieces, a piece a turn of the event loop (or a drain), and every line written
 * after it waits, in order, until it is whole: the child reads the same bytes as before.
 * So a lane's 30 MB message costs another lane's small one at most a slice of pipe and loop time.
 */
export class LineWriter {
  private readonly small: string[] = [];
  private readonly big: Big[] = [];
  /** The long line that is not a response being written now, per order (at most one each). */
  private readonly ordered = new Map<Channel, Big>();
  private readonly behind: Behind[] = [];
  /**
   * How many lines without a key wait in `behind`. A keyed line waits there only behind a long
   * line of its order going out, or behind a line without a key (going out or waiting): so a new
   * line of that order must wait exactly when one of those holds, and needs no count of its own.
   */
  private barriersWaiting = 0;
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
   * lines of its order written after it until it is out). `key`: the order it keeps (none: all).
   */
  write(line: string | WireParts | Promise<WireParts>, response: boolean, key?: OrderKey, framed = false, id?: Id): void {
    const channel = this.sliced ? frameKey(key) : BARRIER;
    // A short line whose text does not name its order (a cancellation) goes as one frame that does.
    const text =
      framed && typeof channel === 'string' && typeof line === 'string' ? `${SLICE_MARK}${this.nextStream++}:${channel} ${line}` : line;
    if (this.mustWait(channel)) this.waitBehind(text, response, channel, id);
    else this.proceed(text, response, channel);
  }

  /**
   * Takes back the request `id` if it still waits behind a line of its order (none of it written):
   * true when it did; what waited behind it goes on if nothing else holds it.
   */
  withdraw(id: Id): boolean {
    const i = this.behind.findIndex((e) => e.id === id);
    if (i < 0) return false;
    const [e] = this.behind.splice(i, 1) as [Behind];
    if (e.channel === BARRIER) this.barriersWaiting -= 1;
    if (!(e.line instanceof Promise)) this.queued -= charsOf(e.line);
    this.releaseBehind();
    this.pump();
    return true;
  }

  /** Whether a line of `channel` must wait: a long line of its order is going out, or a line of it waits already. */
  private mustWait(channel: Channel): boolean {
    if (channel === BARRIER) return this.ordered.size > 0 || this.behind.length > 0;
    return this.ordered.has(channel) || this.ordered.has(BARRIER) || this.barriersWaiting > 0;
  }

  /** A line nothing holds back: written (short), or entered to go out in slices or pieces. */
  private proceed(line: string | WireParts | Promise<WireParts>, response: boolean, channel: Channel): void {
    const short = typeof line === 'string' && line.length <= SLICE_CHARS;
    if (!this.sliced) {
      if (short) this.out.write(`${line}\n`);
      else this.enter(line, false, channel);
      return;
    }
    if (!short) {
      this.enter(line, response, channel);
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

  /** A long line (or one still being made) takes its place: a response among `big`, anything else as its order's `ordered`. */
  private enter(line: string | WireParts | Promise<WireParts>, response: boolean, channel: Channel): void {
    const parts = typeof line === 'string' ? [line] : line instanceof Promise ? [] : line;
    const b: Big = { stream: this.sliced ? this.nextStream++ : 0, cursor: new PieceCursor(parts), ready: !(line instanceof Promise) };
    if (response && this.sliced) this.big.push(b);
    else this.ordered.set(channel, b);
    this.queued += b.cursor.left;
    if (line instanceof Promise) {
      const done = (ps: WireParts): void => {
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

  /** A line written while a line of its order goes out: it waits, in order, and counts as queued (once its parts are made). */
  private waitBehind(line: string | WireParts | Promise<WireParts>, response: boolean, channel: Channel, id?: Id): void {
    this.behind.push({ line: typeof line === 'string' ? [line] : line, response, channel, ...(id === undefined ? {} : { id }) });
    if (channel === BARRIER) this.barriersWaiting += 1;
    if (!(line instanceof Promise)) this.queued += typeof line === 'string' ? line.length : charsOf(line);
  }

  /** A child's stdin: the long line's next piece, then (once it is whole) the lines behind it. */
  private pumpPieces(): void {
    for (
      let b = this.ordered.get(BARRIER);
      b?.ready && !this.blocked && !this.scheduled && !this.out.destroyed;
      b = this.ordered.get(BARRIER)
    ) {
      // The piece as the line's own strings, one corked write: never copied into a string of its own.
      const piece = b.cursor.nextParts(SLICE_CHARS);
      const last = b.cursor.left === 0;
      this.blocked = !writeCorked(this.out, last ? [...piece, '\n'] : piece);
      this.queued -= charsOf(piece);
      if (!last) {
        this.later();
        return;
      }
      this.ordered.delete(BARRIER);
      this.releaseBehind();
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

  private pumping = false;

  /**
   * Writes what may go: small lines first, then slices in turns. Never within itself: a write made
   * from inside the stream's own write (a synchronous reader of a loopback) only queues, and this
   * loop takes it next.
   */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      if (this.sliced) this.pumpSlices();
      else this.pumpPieces();
    } finally {
      this.pumping = false;
    }
  }

  private pumpSlices(): void {
    while (!this.blocked && !this.out.destroyed) {
      const s = this.small.shift();
      if (s !== undefined) {
        this.queued -= s.length;
        this.blocked = !this.out.write(`${s}\n`);
        continue;
      }
      // Large lines take turns: the ordered ones (one per order) and ONE response; the other
      // responses wait in order: the reader holds few half-read answers however many are queued (a
      // burst of 44 unread 24 MB answers otherwise had the front joining them all at once). One
      // still being made waits.
      const turns: [Channel | undefined, Big][] = [];
      for (const [c, b] of this.ordered) if (b.ready) turns.push([c, b]);
      const first = this.big.find((x) => x.ready);
      if (first) turns.push([undefined, first]);
      if (turns.length === 0) return;
      const [channel, b] = turns[this.turn++ % turns.length] as [Channel | undefined, Big];
      const piece = b.cursor.nextParts(SLICE_CHARS);
      const last = b.cursor.left === 0;
      // The last slice of a keyed line carries its key (`:key` then a space): the reader keeps its order.
      const mark = !last ? '+' : typeof channel === 'string' ? `:${channel} ` : '.';
      // One corked write of the frame's head, the piece's own strings and the line end: a frame
      // made as one string was a fresh 256 KiB copy of the piece, on a machine whose fresh pages
      // are slow ~1 ms a slice, at both ends of the link.
      this.blocked = !writeCorked(this.out, [`${SLICE_MARK}${b.stream}${mark}`, ...piece, '\n']);
      this.queued -= charsOf(piece);
      if (!last) continue;
      if (channel === undefined) this.big.splice(this.big.indexOf(b), 1);
      else if (this.ordered.get(channel) === b) {
        this.ordered.delete(channel);
        this.releaseBehind();
      }
    }
  }

  /**
   * A long line of an order is out: what waited goes on, in order, each line as soon as nothing
   * of its order is ahead of it (a long line going out, or a line still waiting); a line without a
   * key once nothing at all is.
   */
  private releaseBehind(): void {
    const held = new Set<Channel>(this.ordered.keys());
    const kept: Behind[] = [];
    for (const e of this.behind.splice(0)) {
      const wait = held.has(BARRIER) || held.has(e.channel) || (e.channel === BARRIER && (held.size > 0 || kept.length > 0));
      if (wait) {
        kept.push(e);
        held.add(e.channel);
        continue;
      }
      if (e.channel === BARRIER) this.barriersWaiting -= 1;
      if (!(e.line instanceof Promise)) this.queued -= charsOf(e.line);
      const one = !(e.line instanceof Promise) && e.line.length === 1 ? e.line[0] : undefined;
      const line = typeof one === 'string' ? one : e.line;
      if (this.sliced && typeof line === 'string' && line.length <= SLICE_CHARS) {
        // Queued, not written from here: the pump that called this writes it next (a pump started
        // here could end another long line, and its release would run inside this one's).
        this.small.push(line);
        this.queued += line.length;
      } else this.proceed(line, e.response, e.channel);
      if (this.ordered.has(e.channel)) held.add(e.channel);
    }
    this.behind.push(...kept);
  }
}
