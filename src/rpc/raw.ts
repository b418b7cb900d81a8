import type { WirePart, WireParts } from './parts.js';
import { byteLengthOf, dropFirst, dropLast, includesFrom, lastChars, partsInclude } from './parts-text.js';
import { joinParts } from './scratch.js';

/** Characters of a large result searched per step (RawResult.searchPaced). */
export const SEARCH_STEP_CHARS = 1024 * 1024;

/** What `mayHave(key)` searches for: the key quoted and followed by a colon. */
export const keyNeedle = (key: string): string => `"${key}":`;

/**
 * A result that crossed a link as JSON text and was not parsed on the way: the front hands it to
 * the lane as the bytes the host sent, and parses it only when something must read or rewrite
 * it. A large result then costs the front's event loop a copy, not a parse and a serialisation.
 */
export class RawResult {
  private value: Record<string, unknown> | undefined;
  private joined: string | undefined;
  /**
   * The result object's JSON text, exactly as the peer wrote it, as parts in order: a large one
   * as the link's slices delivered it (the middle ones as their bytes), never joined on the way
   * to the lane (parts-text.ts).
   */
  readonly parts: WireParts;

  constructor(text: string | WireParts, value?: Record<string, unknown>) {
    this.parts = typeof text === 'string' ? [text] : text;
    this.value = value;
  }

  static of(value: Record<string, unknown>): RawResult {
    return new RawResult(JSON.stringify(value), value);
  }

  /** The text as one string (joined once): for what must read it whole, never a large answer's path to the lane. */
  get text(): string {
    if (this.joined === undefined) {
      const one = this.parts.length === 1 ? this.parts[0] : undefined;
      this.joined = typeof one === 'string' ? one : joinParts(this.parts);
    }
    return this.joined;
  }

  /** Its size in UTF-8 bytes, as the lane receives it. */
  get bytes(): number {
    return byteLengthOf(this.parts);
  }

  /** The parsed object (once; a result that is not a JSON object reads as empty). */
  parsed(): Record<string, unknown> {
    if (this.value === undefined) {
      const v: unknown = JSON.parse(this.text);
      this.value = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    }
    return this.value;
  }

  /** What was searched for already in a text of several parts, and whether it was found (made on first use). */
  private searched: Map<string, boolean> | undefined;

  private get found(): Map<string, boolean> {
    this.searched ??= new Map();
    return this.searched;
  }

  /** Whether the text holds `s` anywhere (searched part by part, not joined; a text of several parts once per string). */
  includes(s: string): boolean {
    // One part (every short result): searched as it is asked, nothing kept (the small call's path as it was).
    if (this.parts.length < 2) return partsInclude(this.parts, s);
    let hit = this.found.get(s);
    if (hit === undefined) {
      hit = partsInclude(this.parts, s);
      this.found.set(s, hit);
    }
    return hit;
  }

  /**
   * Searches for each of `needles` now, all in one pass over the parts, `pause` after every
   * SEARCH_STEP_CHARS: what is asked of a large result later (includes, mayHave) is then a lookup,
   * not a pass. At the front, a 31 MB answer of escaped quotes took five searches of ~15-25 ms
   * each in one step (attack round 38). A text shorter than that is searched as it is asked.
   */
  async searchPaced(needles: readonly string[], pause: () => Promise<void>): Promise<void> {
    if (this.parts.length < 2) return;
    const left = new Set(needles.filter((n) => n.length > 0 && !this.found.has(n)));
    let chars = 0;
    for (let i = 0; i < this.parts.length && left.size > 0; i += 1) {
      for (const n of left)
        if (includesFrom(this.parts, i, n)) {
          this.found.set(n, true);
          left.delete(n);
        }
      chars += (this.parts[i] as WirePart).length;
      if (chars >= SEARCH_STEP_CHARS && i + 1 < this.parts.length) {
        chars = 0;
        await pause();
      }
    }
    for (const n of left) this.found.set(n, false);
  }

  /**
   * Whether the text may hold this key anywhere (as a key: quoted and followed by a colon).
   * No false negatives for text a JSON serialiser wrote without spaces; a match inside a nested
   * object or an escaped string only costs a parse.
   */
  mayHave(key: string): boolean {
    return this.includes(keyNeedle(key));
  }
}

const PREFIX = '{"jsonrpc":"2.0","id":';
const RESULT = ',"result":';

/**
 * A response line in the form a JSON-RPC peer of lanegate's writes it (`{"jsonrpc":"2.0",
 * "id":N,"result":{…}}`, keys in that order, no spaces), read without parsing: the numeric id and
 * the result's text. Anything else is undefined, and the caller parses the line as usual. Used on
 * the front's side of the link only: a host re-serialises what its upstream sent, so no upstream
 * bytes reach a lane unparsed.
 */
export const rawResultLine = (line: string): { id: number; text: string } | undefined => {
  if (line.charCodeAt(line.length - 1) !== 125) return undefined;
  const head = headOf(line);
  if (!head) return undefined;
  const text = line.slice(head.at, -1);
  // The host writes its lines with JSON.stringify, so this is the result object; a line cut short
  // (which the host never writes) is at least not taken for one.
  return text.length >= 2 && text.charCodeAt(text.length - 1) === 125 ? { id: head.id, text } : undefined;
};

/** A response line's head: the numeric id, and where the result's text (an object) starts. Reads only the head. */
const headOf = (line: string): { id: number; at: number } | undefined => {
  if (!line.startsWith(PREFIX)) return undefined;
  let i = PREFIX.length;
  let id = 0;
  const start = i;
  for (; i < line.length && i - start < 15; i += 1) {
    const c = line.charCodeAt(i);
    if (c < 48 || c > 57) break;
    id = id * 10 + (c - 48);
  }
  if (i === start || !line.startsWith(RESULT, i) || line.charCodeAt(i + RESULT.length) !== 123) return undefined;
  return { id, at: i + RESULT.length };
};

/** The longest head a response line of lanegate's has before its result's text: the prefix, 15 digits, `,"result":`. */
const HEAD_MAX = PREFIX.length + 15 + RESULT.length;

/**
 * rawResultLine for a line held as parts (a long line as its slices arrived): the same reading,
 * and the result's text as parts, never joined. A line whose head could span parts is joined and
 * read as one string (only a short line: a link's slice is 120 KiB).
 */
export const rawResultParts = (parts: WireParts): { id: number; parts: WireParts } | undefined => {
  const first: WirePart = parts[0] ?? '';
  if (parts.length === 1 || typeof first !== 'string' || first.length <= HEAD_MAX) {
    const r = rawResultLine(joinParts(parts));
    return r && { id: r.id, parts: [r.text] };
  }
  if (lastChars(parts, 2) !== '}}') return undefined;
  const head = headOf(first);
  return head && { id: head.id, parts: dropLast(dropFirst(parts, head.at), 1) };
};
