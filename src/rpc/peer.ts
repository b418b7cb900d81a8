import type { Readable, Writable } from 'node:stream';
import { type PeerHandlers, RpcEndpoint } from './endpoint.js';
import { ERR, type Id, type RpcError, type RpcMessage } from './jsonrpc.js';
import { rawResultLine, rawResultParts } from './raw.js';
import { LineReader, type Oversize, oversizeResponseId } from './line-reader.js';
import { LineWriter, type OrderKey } from './line-writer.js';
import { LARGE_TURN_CHARS, onTurnFirst, turnFirst } from './turn.js';
import { type SendOptions, transmitter } from './transmit.js';
import { pacedParse } from './paced-json.js';
import { charsOf, type WireParts } from './parts.js';
import { joinParts } from './scratch.js';
import { noteAnswerSize } from './answer-size.js';

/** Longest line accepted from a peer by default; a longer one is a protocol error, not a memory bomb. */
export const MAX_LINE = 64 * 1024 * 1024;

/** Longest line a link (front ⇄ host) carries: the host itself refuses an answer past gateway.limits.resultBytes. */
export const LINK_MAX_LINE = 300 * 1024 * 1024;

/** A line this long or longer counts as large (LineOptions.onLarge). */
export const LARGE_LINE = 1024 * 1024;

/** How long an ended output waits for its end to be accounted for (PeerHandlers.endSettles). */
const END_SETTLE_MS = 1000;

export interface LineOptions extends SendOptions {
  /** Longest line read, in bytes (default MAX_LINE). */
  maxLine?: number;
  /** A link of lanegate's own: large responses go out in slices between other lines, and slices are read. */
  sliced?: boolean;
  /** On a sliced link: a long line's middle slices are read as bytes (LineReaderOptions.bytesParts; the front's side). */
  bytesParts?: boolean;
  /** A line of more than LARGE_LINE characters was read (the front counts them for its GC hint). */
  onLarge?: (chars: number) => void;
  /** The error a pending request gets when its answer was too long to read (default: a generic one). */
  oversize?: (o: Oversize) => RpcError;
}

/** A line read behind a long one, waiting in order: as read, or parsed already (one that read its key to know it must wait). */
interface Waiting {
  /** A long line may be held as its parts (a link's slices, never joined unless it must be parsed). */
  line?: string | WireParts;
  msg?: RpcMessage;
  /** Its order (undefined: every line's). */
  key: OrderKey;
  /** A response: one answer never waits for another (only for a line that is not a response). */
  response?: boolean;
  /** The line read as a raw result (read once, when it came in). */
  raw?: RawRead;
}

/** A result line read without a parse: its id and its result's text (a long line's as parts). */
interface RawRead {
  id: number;
  text: string | WireParts;
}

/** The line as a raw result (raw.ts), or undefined when it is not one. */
const rawOf = (line: string | WireParts): RawRead | undefined => {
  if (typeof line !== 'string') {
    const r = rawResultParts(line);
    return r && { id: r.id, text: r.parts };
  }
  return rawResultLine(line);
};

/**
 * A JSON-RPC peer over newline-delimited JSON streams (MCP's stdio framing): the protocol layer
 * (RpcEndpoint) over one parse per line. Lean on purpose: it sits on every call's path, twice.
 * A line past the read bound is never held: the request it answers fails at once with a named
 * error, and the stream goes on.
 */
export class LinePeer extends RpcEndpoint {
  private readonly writer: LineWriter;

  constructor(input: Readable, output: Writable, handlers: PeerHandlers = {}, opts: LineOptions = {}) {
    const writer = new LineWriter(output, opts.sliced === true);
    const orderOf = opts.sliced === true ? opts.orderOf : undefined;
    super(transmitter(writer, opts.maxSend, orderOf), handlers);
    this.writer = writer;
    this.orderOf = orderOf;
    let failedEarly: number | undefined;
    const reader = new LineReader({
      maxBytes: opts.maxLine ?? MAX_LINE,
      sliced: opts.sliced === true,
      bytesParts: opts.sliced === true && opts.bytesParts === true,
      onLine: (line, key) => {
        if (line.length > LARGE_LINE) opts.onLarge?.(line.length);
        this.lineIn(line, key);
      },
      // A link's long line stays as its slices: a result for a raw request reaches its requester unjoined.
      ...(opts.sliced === true
        ? {
            onParts: (parts: WireParts, key?: string) => {
              const chars = charsOf(parts);
              if (chars > LARGE_LINE) opts.onLarge?.(chars);
              this.partsIn(parts, key);
            },
          }
        : {}),
      onBrokenFrame: (detail) => this.handlers.onProtocolError?.(detail),
      onOversize: (o, final) => {
        // A response whose id comes first fails the moment it passes the bound; one whose id comes
        // last (as the SDKs write it) when its end streams past, without being held.
        const id = oversizeResponseId(o, final);
        if (id !== undefined && this.isPending(id)) {
          this.fail(id, opts.oversize?.(o) ?? { code: ERR.internal, message: `answer too large (${o.bytes} bytes)` });
          failedEarly = final ? undefined : id;
          return;
        }
        if (final && failedEarly === undefined) this.handlers.onProtocolError?.(`line too long (${o.bytes} bytes)`);
        if (final) failedEarly = undefined;
      },
    });
    // Read as bytes: the reader decodes each line once (a long line's chunks stay off the JS heap).
    input.on('data', (chunk: Buffer | string) => reader.push(chunk));
    // Lines still waiting for their turn are handled first: an answer read before the end is not lost.
    input.on('end', () => this.afterBacklog(() => this.ended()));
    input.on('error', () => this.close(handlers.endReason ?? 'peer stream error', handlers.endKind));
    output.on('error', () => this.close(handlers.endReason ?? 'peer stream error', handlers.endKind));
  }

  protected override withdraw(id: Id): boolean {
    return this.writer.withdraw(id);
  }

  protected override orderOfRequest(msg: RpcMessage): string | undefined {
    return this.orderOf?.(msg);
  }

  /** Characters written here and not yet handed to the output stream. */
  get queued(): number {
    return this.writer.queued;
  }

  private readonly orderOf: ((msg: RpcMessage) => OrderKey) | undefined;

  /** Lines read behind a long one that waits for its turn, in order; undefined when none waits. */
  private backlog: Waiting[] | undefined;
  private backlogDone: (() => void) | undefined;

  /**
   * A long line is handled in a turn of its own (the read that completed it was one step, its
   * parse and what follows is the next), and the lines read after it wait behind it, in order.
   * That turn goes FIRST in turn.ts's queue (onTurnFirst), before every scan pass: the lines
   * behind it (a liveness ping, a cancellation, other lanes' answers) must not wait behind those,
   * and a lane's burst of large calls queues seconds of them (attack round 9: the shared host
   * went 24.5 s without answering the front's pings, and was killed). One step an iteration still:
   * plain setImmediate ran every reader's and writer's large step back to back in one check phase.
   * On a link with orders (LineOptions.orderOf), a short line whose key nothing waiting shares
   * (another lane's call) is handled at once, as the writer let it pass.
   */
  private lineIn(line: string, key: OrderKey): void {
    const b = this.backlog;
    if (!b) {
      if (line.length < LARGE_TURN_CHARS) this.onLine(line);
      else {
        this.backlog = [this.waiting(line, key)];
        onTurnFirst(() => this.drainBacklog());
      }
      return;
    }
    const w = this.waiting(line, key);
    if (line.length >= LARGE_TURN_CHARS || !this.orderOf) {
      b.push(w);
      return;
    }
    // A short answer behind long answers only (a lane's large results) goes on at once.
    if (w.raw) {
      if (b.every((x) => x.response)) this.onLine(line, w.raw);
      else b.push({ ...w, key: undefined });
      return;
    }
    let msg: RpcMessage;
    try {
      msg = JSON.parse(line) as RpcMessage;
    } catch {
      b.push({ line, key: undefined });
      return;
    }
    const own = key ?? this.orderOf(msg);
    const response = !('method' in msg);
    const passes = response ? b.every((w) => w.response) : own !== undefined && b.every((w) => w.key !== undefined && w.key !== own);
    if (passes) this.receive(msg);
    else b.push({ msg, key: own, response });
  }

  /** A line as it waits: a raw result is read as one here, once. */
  private waiting(line: string | WireParts, key: OrderKey): Waiting {
    const raw = rawOf(line);
    return raw ? { line, key, response: true, raw } : { line, key, response: false };
  }

  /** A long line held as its parts: always a turn of its own, as a long line is (lineIn). */
  private partsIn(parts: WireParts, key: OrderKey): void {
    const w = this.waiting(parts, key);
    if (this.backlog) {
      this.backlog.push(w);
      return;
    }
    this.backlog = [w];
    onTurnFirst(() => this.drainBacklog());
  }

  private drainBacklog(): void {
    const b = this.backlog as Waiting[];
    for (let first = true; b.length > 0; first = false) {
      const next = b[0] as Waiting;
      const long = next.line !== undefined && (typeof next.line !== 'string' || next.line.length >= LARGE_TURN_CHARS);
      if (!first && long) {
        onTurnFirst(() => this.drainBacklog());
        return;
      }
      if (long) {
        // Parsed in steps (paced-json.ts); the lines behind it wait, in order, until it is handled.
        // It stays first in the backlog meanwhile: a line of its order read now waits behind it.
        const after = (): void => {
          b.shift();
          this.drainBacklog();
        };
        this.onLongLine(next.line as string | WireParts, next.raw).then(after, after);
        return;
      }
      b.shift();
      if (next.msg) this.receive(next.msg);
      else this.onLine(next.line as string, next.raw);
    }
    this.backlog = undefined;
    const done = this.backlogDone;
    this.backlogDone = undefined;
    done?.();
  }

  /** The output ended: its requests fail once the end is accounted for (PeerHandlers.endSettles), at most END_SETTLE_MS late. */
  private ended(): void {
    const close = (): void => this.close(this.handlers.endReason ?? 'peer closed its output', this.handlers.endKind);
    if (!this.handlers.endSettles) {
      close();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    void Promise.race([this.handlers.endSettles, new Promise((r) => (timer = setTimeout(r, END_SETTLE_MS)))]).then(() => {
      clearTimeout(timer);
      close();
    });
  }

  private afterBacklog(f: () => void): void {
    if (this.backlog) this.backlogDone = f;
    else f();
  }

  /** onLine for a long line: its parse a window a step, each step first in turn.ts's queue. */
  private async onLongLine(line: string | WireParts, raw: RawRead | undefined): Promise<void> {
    if (raw && this.receiveRaw(raw.id, raw.text)) return;
    let msg: RpcMessage;
    try {
      // Anything but a raw result is parsed, so joined (a request the host reads, a result nobody waits for raw).
      msg = (await pacedParse(typeof line === 'string' ? line : joinParts(line), turnFirst)) as RpcMessage;
    } catch {
      this.handlers.onProtocolError?.('unparseable line');
      return;
    }
    // What it weighs for its lane in a host (host/answer-bytes.ts), without serialising it again.
    if ('result' in msg) noteAnswerSize(msg.result, typeof line === 'string' ? line.length : charsOf(line));
    this.receive(msg);
  }

  /** A short line; a result for a raw request goes on as text, no parse on this hop (`raw`: read already, when it waited). */
  private onLine(line: string, raw: RawRead | undefined = rawResultLine(line)): void {
    if (raw && this.receiveRaw(raw.id, raw.text)) return;
    let msg: RpcMessage;
    try {
      msg = JSON.parse(line) as RpcMessage;
    } catch {
      this.handlers.onProtocolError?.('unparseable line');
      return;
    }
    this.receive(msg);
  }
}
