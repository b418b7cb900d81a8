import { FRAME_KEY_MAX, SLICE_MARK } from './line-writer.js';
import { decodeUtf8, type Parts } from './parts.js';
import { byteLengthOf, lastChars, trimParts } from './parts-text.js';
import { joinBytes, joinText } from './scratch.js';

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
  onParts?: (parts: Parts, key?: string) => void;
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
  /** Slice frames being joined, by stream. */
  private readonly slices = new Map<string, { parts: string[]; chars: number }>();

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
    if (this.byteParts.length === 0) line = lineOf(buf, start, nl);
    else {
      this.byteParts.push(buf.subarray(start, nl));
      // Laid out in the process's scratch (its pages resident) and decoded at once: no fresh buffer per line.
      line = decodeUtf8(joinBytes(this.byteParts, this.bufBytes + nl - start));
      this.byteParts = [];
      this.bufBytes = 0;
    }
    start = nl + 1;
    for (;;) {
      this.complete(line);
      nl = buf.indexOf(10, start);
      if (nl < 0) break;
      line = lineOf(buf, start, nl);
      start = nl + 1;
    }
    this.extendBytes(buf.subarray(start));
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
  private completeParts(parts: Parts, chars: number, key?: string): void {
    const bytes = chars * 3 > this.o.maxBytes ? byteLengthOf(parts) : 0;
    if (bytes > this.o.maxBytes) {
      this.o.onOversize({ head: (parts[0] as string).slice(0, KEEP), tail: lastChars(parts, KEEP), bytes }, true);
      return;
    }
    const line = trimParts(parts);
    if (line.length > 0) this.o.onParts?.(line, key);
  }

  /** One slice frame: `\x1e<stream><+|.|:key ><text>`; the last one (`.`, or `:` with its order's key) hands the joined line on. */
  private slice(raw: string): void {
    let i = 1;
    while (i < raw.length && raw.charCodeAt(i) >= 48 && raw.charCodeAt(i) <= 57) i += 1;
    const stream = raw.slice(1, i);
    const mark = raw[i];
    if (stream.length === 0 || (mark !== '+' && mark !== '.' && mark !== ':')) return;
    const space = mark === ':' ? raw.indexOf(' ', i) : -1;
    if (mark === ':' && (space < 0 || space - i - 1 > FRAME_KEY_MAX)) {
      // Only a broken writer: the line is lost, and said so (its earlier slices are let go).
      this.slices.delete(stream);
      this.o.onBrokenFrame?.(`slice frame of stream ${stream} without the end of its key`);
      return;
    }
    const key = mark === ':' && space > i + 1 ? raw.slice(i + 1, space) : undefined;
    const text = raw.slice(mark === ':' ? space + 1 : i + 1);
    let s = this.slices.get(stream);
    if (!s) {
      s = { parts: [], chars: 0 };
      this.slices.set(stream, s);
    }
    s.parts.push(text);
    s.chars += text.length;
    if (s.chars > this.o.maxBytes) {
      // Never the case for a writer of lanegate's (it refuses such an answer before the link).
      this.slices.delete(stream);
      this.o.onOversize(
        {
          head: s.parts[0]?.slice(0, KEEP) ?? '',
          tail: text.slice(-KEEP),
          bytes: s.chars,
        },
        true,
      );
      return;
    }
    if (mark !== '+') {
      this.slices.delete(stream);
      if (this.o.onParts && s.parts.length > 1 && !(s.parts[0] as string).startsWith(SLICE_MARK)) this.completeParts(s.parts, s.chars, key);
      else this.complete(joinText(s.parts), key);
    }
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
