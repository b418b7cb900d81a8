/**
 * A large request body opened without ever becoming one string or one buffer (issue 19). On a
 * machine whose fresh pages are slow, decoding a 3.9 MB body whole stalled the front 14-21 ms a
 * quarter of the time (perf: half of its page faults under the byte flood), and copying it into a
 * buffer of its own ~21 ms each (a CPU profile of the flood). Here:
 *
 * - the bytes stay the chunks the HTTP parser delivered (byte-chunks.ts), and the long string
 *   values are found on them (json-bytes.ts);
 * - each long value is checked a window at a time as JSON.parse would check it (raw control
 *   characters on the bytes; a window with an escape decoded and parsed);
 * - the rest, the skeleton with a placeholder per long value, is what the front parses and checks;
 * - the body goes on to the host as the text between long values and each long value's bytes,
 *   views of the chunks, in order (never joined or copied), and a long value becomes a string in
 *   the parsed body only if something in the front reads it.
 *
 * Anything unexpected (not UTF-8, no long value, a value that does not validate) gives undefined:
 * the caller decodes the body whole and parses it as before, which then judges it as before.
 */
import { isUtf8 } from 'node:buffer';
import { decodeUtf8, type WirePart } from '../../rpc/parts.js';
import { hasControlByte, safeByteCut } from '../../rpc/json-bytes.js';
import { longTokens } from '../../rpc/json-tokens.js';
import { alignUtf8, ByteChunks } from '../../rpc/byte-chunks.js';
import { placeholder } from '../../rpc/placeholders.js';
import { SLICE_CHARS } from '../../rpc/line-writer.js';
import { LONG_VALUE_CHARS } from '../../rpc/paced-json.js';

const BACKSLASH = 0x5c;

export interface LargeBody {
  /** The body as sent, in order: the text between long values, and each long value's bytes (validated). */
  parts: WirePart[];
  /** The text with each long value a placeholder: what is parsed and checked. */
  skeleton: string;
  /** Long value `i`, decoded (on demand: the first read of it). */
  valueOf: (i: number) => string;
}

export interface LargeBodySizes {
  /** A string value this many bytes long or longer is a long value. */
  longValue: number;
  /** Bytes of a long value checked per window (under V8's 128 KiB young-generation object limit). */
  window: number;
  /** Bytes decoded and checked between two pauses. */
  step: number;
}

export const LARGE_BODY_SIZES: LargeBodySizes = {
  longValue: LONG_VALUE_CHARS,
  window: SLICE_CHARS,
  step: 256 * 1024,
};

/** Text of bytes [a, b), cut into parts of at most `window` bytes (a gap between long values is short, but need not be). */
const textParts = (bytes: ByteChunks, a: number, b: number, window: number): string[] => {
  const out: string[] = [];
  for (let s = a; s < b; ) {
    const e = b - s <= window ? b : safeByteCut(bytes, s, s + window);
    if (e <= s) throw new Error('no safe cut');
    out.push(decodeUtf8(bytes.bytes(s, e)));
    s = e;
  }
  return out;
};

/**
 * One long value's windows, each checked as JSON.parse checks a string's text: its bytes searched
 * for a raw control character (nothing decoded or copied), a window with an escape decoded and
 * parsed. Whether any holds an escape.
 */
const valueParts = async (
  bytes: ByteChunks,
  from: number,
  to: number,
  z: LargeBodySizes,
  pause: () => Promise<void>,
): Promise<{ parts: Buffer[]; escaped: boolean }> => {
  const parts: Buffer[] = [];
  let escaped = false;
  let since = 0;
  for (let a = from; a < to; ) {
    // A window ends where its chunk does (a view of it, not a copy), or at the value's end; only an
    // escape cut by the chunk's end takes a few bytes of the next with it (copied). Chunks end
    // between characters (alignUtf8).
    const end = Math.min(to, a + z.window, bytes.chunkEnd(a));
    let b = end === to ? to : safeByteCut(bytes, a, end);
    if (b <= a) b = safeByteCut(bytes, a, Math.min(to, a + 12));
    if (b <= a) throw new Error('no safe cut');
    const view = bytes.bytes(a, b);
    if (view.indexOf(BACKSLASH) < 0) {
      if (hasControlByte(view)) throw new Error('raw control character');
    } else {
      // Escapes: decoded and parsed as JSON.parse would (raw control characters too).
      escaped = true;
      JSON.parse(`"${decodeUtf8(view)}"`);
    }
    parts.push(...bytes.slices(a, b));
    since += b - a;
    a = b;
    if (since >= z.step && a < to) {
      since = 0;
      await pause();
    }
  }
  return { parts, escaped };
};

/** The large body opened (see the file's comment), or undefined: then it is read whole, as before. */
export const openLargeBody = async (
  chunks: readonly Buffer[],
  pause: () => Promise<void>,
  sizes: Partial<LargeBodySizes> = {},
): Promise<LargeBody | undefined> => {
  const z = { ...LARGE_BODY_SIZES, ...sizes };
  // Each chunk whole characters, so valid UTF-8 chunk by chunk is valid UTF-8 whole.
  const aligned = alignUtf8(chunks);
  if (!aligned.every((c) => isUtf8(c))) return undefined;
  const bytes = new ByteChunks(aligned);
  const long = longTokens(bytes, z.longValue);
  if (!long) return undefined;
  try {
    const parts: WirePart[] = [];
    const skeleton: string[] = [];
    const values: { parts: Buffer[]; escaped: boolean }[] = [];
    // The text between long values (a gap) runs from a closing quote to the next opening quote,
    // both included; in the skeleton the placeholder token stands for quote, value and quote.
    let at = 0;
    for (let i = 0; i <= long.length; i += 1) {
      const t = long[i];
      const gap = textParts(bytes, at, t ? t.open + 1 : bytes.length, z.window);
      parts.push(...gap);
      const bare = gap.slice();
      if (i > 0) bare[0] = (bare[0] as string).slice(1);
      if (t) bare[bare.length - 1] = (bare[bare.length - 1] as string).slice(0, -1);
      skeleton.push(...bare);
      if (!t) break;
      skeleton.push(placeholder(i));
      await pause();
      const v = await valueParts(bytes, t.open + 1, t.close, z, pause);
      values.push(v);
      parts.push(...v.parts);
      at = t.close;
    }
    return {
      parts,
      skeleton: skeleton.join(''),
      valueOf: (i) => {
        const v = values[i];
        if (!v) throw new Error('no such long value');
        const text = Buffer.concat(v.parts).toString('utf8');
        return v.escaped ? (JSON.parse(`"${text}"`) as string) : text;
      },
    };
  } catch {
    return undefined;
  }
};
