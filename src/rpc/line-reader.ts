import { FRAME_KEY_MAX, SLICE_MARK } from './line-writer.js';
import { decodeUtf8, type WirePart, type WireParts } from './parts.js';
import { byteLengthOf, lastChars, trimParts } from './parts-text.js';
import { joinBytes, joinParts } from './scratch.js';
import { alignUtf8 } from './byte-chunks.js';

/** What is known of a line that was too long to keep: its first and last characters, and its size. */
export interface Oversize {
  head: string;
  tail: string;
  /** Its size in bytes (UTF-8), counted as it streamed past. */
  bytes: number;
}

export interface LineReaderOptions {
  /** Longest line kept, in bytes; a longer one is counted and dropped as it streams, never held. */
  maxBytes: number;
  /** Accept the slice frames a LineWriter writes on a link (never from a child: a child writes JSON). */
  sliced?: boolean;
  /** A whole line; `key` the order a link's long line keeps (its last slice names it, line-writer.ts). */
  onLine: (line: string, key?: string) => void;
  /**
   * Given, a line that came in more than one slice is handed on as the slices' texts, in order,
   * never joined (parts-text.ts reads them): the reader decides whether it must be joined.
   */
  onParts?: (parts: WireParts, key?: string) => void;
  /**
   * With onParts: the slices between a long line's first and its last two are handed on as their
   * bytes (views of the chunks read, each holding whole characters), never decoded: the front
   * sends a large answer to its lane as the bytes the host wrote (issue 19: the answers' decoded
   * slices, kept while a slow client read, were most of what the front's collector copied). Its
   * ends stay text, for what reads a result's head or tail (raw.ts, via.ts).
   */
  bytesParts?: boolean;
  /** A slice frame no LineWriter writes (a `:` mark without its key's end): the line is lost. */
  onBrokenFrame?: (detail: string) => void;
  /** A line passed the bound (`final` false, at once, with its head) and ended (`final` true, with its tail). */
  onOversize: (o: Oversize, final: boolean) => void;
}

const KEEP = 512;

/** The text of bytes [start, end) of a chunk: a long run (a link's slice) through decodeUtf8, a short one as before. */
const lineOf = (buf: Buffer, start: number, end: number): string =>
  end - start >= 16 * 1024 ? decodeUtf8(buf.subarray(start, end)) : buf.toString('utf8', start, end);

/** The first (or last) KEEP characters of the text that byte pieces hold, decoding only what that needs. */
const edgeOf = (parts: readonly Buffer[], head: boolean): string => {
  const want = KEEP * 4;
  const picked: Buffer[] = [];
  let n = 0;
  for (let i = 0; i < parts.length && n < want; i += 1) {
    const p = parts[head ? i : parts.length - 1 - i] as Buffer;
    if (head) picked.push(p);
    else picked.unshift(p);
    n += p.length;
  }
  const b = Buffer.concat(picked);
  return head
    ? b.toString('utf8', 0, Math.min(b.length, want)).slice(0, KEEP)
    : b.toString('utf8', Math.max(0, b.length - want)).slice(-KEEP);
};

/**
 * Splits a text stream into lines, scanning each chunk once: a chunk without a line end only
 * extends the partial line (a long message arriving in many chunks is not rescanned per chunk).
 * A line past `maxBytes` is not held: from the moment it passes the bound only its last few
 * hundred characters are kept (where a JSON-RPC response's id usually is) until its end.
 */
export class LineReader {
  private bufBytes = 0;
  /** Set while a too-long line streams past. */
  private skip: { head: string; tail: string; bytes: number } | undefined;
  /** Slice frames being joined, by stream: their parts, their size, and (bytesParts) the last slice's bytes, held back. */
  private readonly slices = new Map<string, { parts: WirePart[]; chars: number; held?: Buffer[]; heldBytes?: number }>();

  constructor(private readonly o: LineReaderOptions) {}

  /**
   * A chunk of the stream. Its bytes are split at line ends first and each line decoded once: a long line's chunks wait as bytes outside the JS heap, not as
   * tens of 64 KiB strings that the young generation copies until the line ends (issue 19: the
   * collections of those copies were the host's largest pauses beside a lane's large answers). A
   * line end (0x0A) is never inside a multi-byte UTF-8 sequence, so each line decodes alone.
   */
  push(chunk: string | Buffer): void {
    // Text (a test's, or a stream given an encoding) is read as its bytes: one path for both.
    this.pushBytes(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }

  /** The partial line's byte pieces, joined and decoded once when it ends. */
  private byteParts: Buffer[] = [];

  private pushBytes(buf: Buffer): void {
    let start = 0;
    if (this.skip) {
      const nl = buf.indexOf(10);
      this.skippedBytes(nl < 0 ? buf : buf.subarray(0, nl));
      if (nl < 0) return;
      const s = this.skip;
      this.skip = undefined;
      this.o.onOversize(s, true);
      start = nl + 1;
    }
    let nl = buf.indexOf(10, start);
    if (nl < 0) {
      this.extendBytes(buf.subarray(start));
      return;
    }
    let line: string;
    if (this.byteParts.length === 0) line = this.byteFrame(buf, start, nl) ? '' : lineOf(buf, start, nl);
    else if (this.o.bytesParts && this.o.sliced && this.byteParts[0]?.[0] === 0x1e) {
      // A slice frame's bytes, kept as they were read (never laid out in the scratch: it is reused).
      this.byteParts.push(buf.subarray(start, nl));
      this.sliceBytes(this.byteParts);
      this.byteParts = [];
      this.bufBytes = 0;
      line = '';
    } else {
      this.byteParts.push(buf.subarray(start, nl));
      // Laid out in the process's scratch (its pages resident) and decoded at once: no fresh buffer per line.
      line = decodeUtf8(joinBytes(this.byteParts, this.bufBytes + nl - start));
      this.byteParts = [];
      this.bufBytes = 0;
    }
    start = nl + 1;
    for (;;) {
      if (line.length > 0) this.complete(line);
      nl = buf.indexOf(10, start);
      if (nl < 0) break;
      line = this.byteFrame(buf, start, nl) ? '' : lineOf(buf, start, nl);
      start = nl + 1;
    }
    this.extendBytes(buf.subarray(start));
  }

  /** A slice frame read whole from one chunk, taken as bytes (bytesParts); false for any other line. */
  private byteFrame(buf: Buffer, start: number, end: number): boolean {
    if (!this.o.bytesParts || !this.o.sliced || buf[start] !== 0x1e) return false;
    this.sliceBytes([buf.subarray(start, end)]);
    return true;
  }

  private extendBytes(piece: Buffer): void {
    if (piece.length === 0) return;
    this.byteParts.push(piece);
    this.bufBytes += piece.length;
    if (this.bufBytes > this.o.maxBytes) {
      this.skip = { head: edgeOf(this.byteParts, true), tail: edgeOf(this.byteParts, false), bytes: this.bufBytes };
      this.byteParts = [];
      this.bufBytes = 0;
      this.o.onOversize(this.skip, false);
    }
  }

  private skippedBytes(piece: Buffer): void {
    const s = this.skip;
    if (!s) return;
    s.bytes += piece.length;
    const text = piece.toString('utf8', Math.max(0, piece.length - KEEP * 4));
    s.tail = text.length >= KEEP ? text.slice(-KEEP) : (s.tail + text).slice(-KEEP);
  }

  /** A whole line. */
  private complete(raw: string, key?: string): void {
    if (this.o.sliced && raw.startsWith(SLICE_MARK)) {
      this.slice(raw);
      return;
    }
    // Only a line that could be over the bound is measured in bytes (3 bytes a character at most).
    const bytes = raw.length * 3 > this.o.maxBytes ? Buffer.byteLength(raw) : 0;
    if (bytes > this.o.maxBytes) {
      this.o.onOversize({ head: raw.slice(0, KEEP), tail: raw.slice(-KEEP), bytes }, true);
      return;
    }
    const line = raw.trim();
    if (line.length > 0) this.o.onLine(line, key);
  }

  /** A whole line of several slices, as complete() takes one string: bounded in bytes, trimmed, handed on unjoined. */
  private completeParts(parts: WireParts, chars: number, key?: string): void {
    const bytes = chars * 3 > this.o.maxBytes ? byteLengthOf(parts) : 0;
    if (bytes > this.o.maxBytes) {
      const head = parts[0];
      this.o.onOversize({ head: typeof head === 'string' ? head.slice(0, KEEP) : '', tail: lastChars(parts, KEEP), bytes }, true);
      return;
    }
    const line = trimParts(parts);
    if (line.length > 0) this.o.onParts?.(line, key);
  }

  /** One slice frame as text: `\x1e<stream><+|.|:key ><text>`. */
  private slice(raw: string): void {
    const h = this.frameHead(raw);
    if (h) this.frame(h, raw.slice(h.at));
  }

  /** One slice frame as the bytes read (bytesParts): its head read from its first bytes, its text left as bytes. */
  private sliceBytes(views: readonly Buffer[]): void {
    // The head is ASCII (a lane name at most FRAME_KEY_MAX long): one latin1 character a byte.
    const want = FRAME_KEY_MAX + 32;
    // Enough of the first views to hold it (a read may have cut it anywhere, even a byte a read).
    let k = 0;
    for (let n = 0; k < views.length && n < want; k += 1) n += (views[k] as Buffer).length;
    const headBytes = k <= 1 ? (views[0] as Buffer) : Buffer.concat(views.slice(0, k) as Buffer[]);
    const h = this.frameHead(headBytes.toString('latin1', 0, Math.min(headBytes.length, want)));
    if (!h) return;
    const out: Buffer[] = [];
    let skip = h.at;
    for (const v of views) {
      if (skip >= v.length) skip -= v.length;
      else {
        out.push(skip > 0 ? v.subarray(skip) : v);
        skip = 0;
      }
    }
    this.frame(h, out);
  }

  /** A slice frame's head: its stream, mark, key and where its text starts; undefined for a frame no writer writes. */
  private frameHead(raw: string): { stream: string; mark: string; key?: string; at: number } | undefined {
    let i = 1;
    while (i < raw.length && raw.charCodeAt(i) >= 48 && raw.charCodeAt(i) <= 57) i += 1;
    const stream = raw.slice(1, i);
    const mark = raw[i];
    if (stream.length === 0 || (mark !== '+' && mark !== '.' && mark !== ':')) return undefined;
    const space = mark === ':' ? raw.indexOf(' ', i) : -1;
    if (mark === ':' && (space < 0 || space - i - 1 > FRAME_KEY_MAX)) {
      // Only a broken writer: the line is lost, and said so (its earlier slices are let go).
      this.slices.delete(stream);
      this.o.onBrokenFrame?.(`slice frame of stream ${stream} without the end of its key`);
      return undefined;
    }
    const key = mark === ':' && space > i + 1 ? raw.slice(i + 1, space) : undefined;
    return { stream, mark, ...(key === undefined ? {} : { key }), at: mark === ':' ? space + 1 : i + 1 };
  }

  /**
   * A slice's text joins its stream; the last one (`.`, or `:` with its order's key) hands the line
   * on. Given as bytes (bytesParts), a slice's text stays bytes unless it is the first or one of the
   * last two: each slice is held back until the next arrives, and only then let go as bytes.
   */
  private frame(h: { stream: string; mark: string; key?: string }, text: string | Buffer[]): void {
    let s = this.slices.get(h.stream);
    if (!s) {
      s = { parts: [], chars: 0 };
      this.slices.set(h.stream, s);
    }
    const size = typeof text === 'string' ? text.length : text.reduce((n, v) => n + v.length, 0);
    // The slice held back goes on as bytes, or as text when it is the one before the last (a
    // result's tail may reach into it: via.ts reads 122 characters, and the last may be one).
    if (s.held) s.parts.push(...(h.mark === '+' ? alignUtf8(s.held) : [decodeUtf8(joinBytes(s.held, s.heldBytes ?? 0))]));
    s.held = undefined;
    if (typeof text === 'string') s.parts.push(text);
    else if (s.parts.length === 0 || h.mark !== '+') s.parts.push(decodeUtf8(joinBytes(text, size)));
    else {
      s.held = text;
      s.heldBytes = size;
    }
    s.chars += size;
    if (s.chars > this.o.maxBytes) {
      // Never the case for a writer of lanegate's (it refuses such an answer before the link).
      this.slices.delete(h.stream);
      const head = s.parts[0];
      this.o.onOversize(
        { head: typeof head === 'string' ? head.slice(0, KEEP) : '', tail: lastChars(s.parts, KEEP), bytes: s.chars },
        true,
      );
      return;
    }
    if (h.mark === '+') return;
    this.slices.delete(h.stream);
    const first = s.parts[0];
    if (this.o.onParts && s.parts.length > 1 && !(typeof first === 'string' && first.startsWith(SLICE_MARK)))
      this.completeParts(s.parts, s.chars, h.key);
    else this.complete(joinParts(s.parts), h.key);
  }
}

const RESPONSE_HEAD = /^\s*\{\s*(?:"(?:jsonrpc|id)"\s*:\s*(?:"2\.0"|-?\d+|"[^"\\]*")\s*,\s*)*"(?:result|error)"\s*:/;
const ID_FIRST = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d{1,15})\s*,/;
const ID_LAST = /"id"\s*:\s*(\d{1,15})\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

/**
 * The id of a response whose line was too long to keep, from its head and tail: lanegate's own
 * request ids are numbers, and a JSON-RPC response puts its id before or after the result (the
 * SDKs write it last). Undefined when the line is not a response (a server's request or
 * notification) or the id cannot be found: then nothing is failed on a guess.
 */
export const oversizeResponseId = (o: Oversize, final = true): number | undefined => {
  if (!RESPONSE_HEAD.test(o.head)) return undefined;
  const first = ID_FIRST.exec(o.head)?.[1];
  const id = first ?? (final ? ID_LAST.exec(o.tail)?.[1] : undefined);
  return id === undefined ? undefined : Number(id);
};
