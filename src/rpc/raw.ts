/**
 * A result that crossed a link as JSON text and was not parsed on the way: the front hands it to
 * the lane as the bytes the host sent, and parses it only when something must read or rewrite
 * it. A large result then costs the front's event loop a copy, not a parse and a serialisation.
 */
export class RawResult {
  private value: Record<string, unknown> | undefined;

  constructor(
    /** The result object's JSON text, exactly as the peer wrote it. */
    readonly text: string,
    value?: Record<string, unknown>,
  ) {
    this.value = value;
  }

  static of(value: Record<string, unknown>): RawResult {
    return new RawResult(JSON.stringify(value), value);
  }

  /** The parsed object (once; a result that is not a JSON object reads as empty). */
  parsed(): Record<string, unknown> {
    if (this.value === undefined) {
      const v: unknown = JSON.parse(this.text);
      this.value = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    }
    return this.value;
  }

  /**
   * Whether the text may hold this key anywhere (as a key: quoted and followed by a colon).
   * No false negatives for text a JSON serialiser wrote without spaces; a match inside a nested
   * object or an escaped string only costs a parse.
   */
  mayHave(key: string): boolean {
    return this.text.includes(`"${key}":`);
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
  if (!line.startsWith(PREFIX) || line.charCodeAt(line.length - 1) !== 125) return undefined;
  let i = PREFIX.length;
  let id = 0;
  const start = i;
  for (; i < line.length && i - start < 15; i += 1) {
    const c = line.charCodeAt(i);
    if (c < 48 || c > 57) break;
    id = id * 10 + (c - 48);
  }
  if (i === start || !line.startsWith(RESULT, i) || line.charCodeAt(i + RESULT.length) !== 123) return undefined;
  const text = line.slice(i + RESULT.length, -1);
  // The host writes its lines with JSON.stringify, so this is the result object; a line cut short
  // (which the host never writes) is at least not taken for one.
  return text.length >= 2 && text.charCodeAt(text.length - 1) === 125 ? { id, text } : undefined;
};
