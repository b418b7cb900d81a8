/**
 * JSON.stringify for a message that holds long strings, in steps (issue 19): whole, a 3.9 MB
 * answer costs ~6 ms of serialisation plus a flattening copy before its first byte is written,
 * which another lane's small call waits behind. Here the message is serialised with each long
 * string replaced by a placeholder (the skeleton), and each long string is escaped a window at a
 * time, `pause` between windows. The text is handed on as its parts, in order (a LineWriter
 * writes them without joining them).
 *
 * The text is JSON.stringify's, exactly: a window cut never splits a surrogate pair, and
 * JSON.stringify of a window is that window's part of the string's JSON form; a window that holds
 * nothing JSON escapes is its own JSON form, and is kept as a slice (no copy).
 */
import { randomBytes } from 'node:crypto';
import { LONG_VALUE_CHARS, PACE_SIZES, type PaceSizes } from './paced-json.js';
import { needsJsonEscape } from './parts.js';

/** Placeholders carry a per-process nonce: a string in the message can never be taken for one. */
const NONCE = `\u0000lanegate-long-out-${randomBytes(12).toString('hex')}-`;

/** Nodes a probe visits before it gives up looking for a long string (a big listing is not a long value). */
const PROBE_NODES = 256;

/** Depth past which a probe stops descending (a message that deep is serialised in steps: the same text either way). */
const PROBE_DEPTH = 64;

/** The probe's walk: true when it finds a long string; `left[0]` counts the values it may still visit. */
const probe = (v: unknown, left: [number], depth: number): boolean => {
  if (left[0]-- <= 0) return false;
  if (typeof v === 'string') return v.length >= LONG_VALUE_CHARS;
  if (v === null || typeof v !== 'object') return false;
  if (depth >= PROBE_DEPTH) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && left[0] > 0; i += 1) if (probe(v[i], left, depth + 1)) return true;
    return false;
  }
  // for-in, not Object.keys: no array per object (the probe runs on every message a link sends).
  for (const k in v) {
    if (left[0] <= 0) return false;
    if (probe((v as Record<string, unknown>)[k], left, depth + 1)) return true;
  }
  return false;
};

/**
 * Whether a message holds a string of LONG_VALUE_CHARS or more among its first PROBE_NODES values
 * (about a microsecond for the small messages of nearly every call). Only the path is chosen
 * here: pacedStringify and JSON.stringify write the same text.
 */
export const holdsLongString = (msg: unknown): boolean => probe(msg, [PROBE_NODES], 0);

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** One long string's JSON form, without its quotes, a window a step. */
const escapeLong = async (s: string, out: string[], pause: () => Promise<void>, window: number): Promise<void> => {
  for (let a = 0; a < s.length; ) {
    let b = Math.min(a + window, s.length);
    if (b < s.length && isHighSurrogate(s.charCodeAt(b - 1))) b -= 1;
    const w = s.slice(a, b);
    out.push(needsJsonEscape(w) ? JSON.stringify(w).slice(1, -1) : w);
    a = b;
    if (a < s.length) await pause();
  }
};

/**
 * JSON.stringify(msg) as parts, in steps: the skeleton at once, each long string a window a
 * step. A message without long strings is one part.
 */
export const pacedStringify = async (msg: unknown, pause: () => Promise<void>, sizes: Partial<PaceSizes> = {}): Promise<string[]> => {
  const z = { ...PACE_SIZES, ...sizes };
  const long: string[] = [];
  const skeleton = JSON.stringify(msg, (_k, v: unknown) => {
    if (typeof v !== 'string' || v.length < z.longValue) return v;
    long.push(v);
    return `${NONCE}${long.length - 1}`;
  });
  if (long.length === 0) return [skeleton];
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < long.length; i += 1) {
    const token = JSON.stringify(`${NONCE}${i}`);
    const p = skeleton.indexOf(token, at);
    // Never the case: the replacer put each token in, in order.
    if (p < 0) return [JSON.stringify(msg)];
    parts.push(skeleton.slice(at, p + 1));
    await pause();
    await escapeLong(long[i] as string, parts, pause, z.window);
    at = p + token.length - 1;
  }
  parts.push(skeleton.slice(at));
  return parts;
};
