import { decodeUtf8, type WireParts } from './parts.js';
/**
 * One buffer per process in which a line's byte pieces are laid end to end just before the line
 * is decoded (line-reader.ts). Buffer.concat made a fresh buffer for every long line: ~8 ms of
 * page faults for a 3.9 MB answer on a machine whose fresh pages are slow (issue 19), on the
 * event loop every lane shares. The scratch's pages stay in memory between lines, so laying a
 * line out is a copy. The joined bytes are decoded at once, synchronously, and never kept: one
 * buffer serves every reader of the process. It grows to the longest line laid out (up to
 * MAX_SCRATCH; a longer one is concatenated as before) and is let go after IDLE_MS unused.
 */

/**
 * A line longer than this is concatenated into a buffer of its own (the scratch never holds more).
 * It covers a line of the default gateway.limits.resultBytes (32 MiB): at 16 MiB, a 31 MB answer
 * was concatenated into fresh pages, ~90 ms of one step at the host (attack round 38).
 */
export const MAX_SCRATCH = 34 * 1024 * 1024;
/** Unused this long, the scratch is let go (its memory returns to the system). */
const IDLE_MS = 30_000;
const STEP = 1024 * 1024;

let scratch: Buffer | undefined;
let lastUse = 0;
let timer: NodeJS.Timeout | undefined;

const release = (): void => {
  timer = undefined;
  if (Date.now() - lastUse >= IDLE_MS) scratch = undefined;
  else arm();
};

const arm = (): void => {
  if (timer) return;
  timer = setTimeout(release, IDLE_MS);
  timer.unref();
};

/**
 * The pieces' bytes end to end, `n` of them. The result is valid only until the next call: decode
 * it (or copy it) before anything else runs. Past MAX_SCRATCH, a buffer of its own.
 */
export const joinBytes = (pieces: readonly Buffer[], n: number): Buffer => {
  if (n > MAX_SCRATCH) return Buffer.concat(pieces as Buffer[], n);
  const s = room(n);
  let at = 0;
  for (const p of pieces) {
    if (at >= n) break;
    at += p.copy(s, at, 0, Math.min(p.length, n - at));
  }
  return s.subarray(0, at);
};

/**
 * Past this many characters Node keeps a latin1-decoded text in malloc'd memory (its external-string
 * threshold is ~1,031,913 bytes), which glibc reuses (malloc-env.ts); a shorter one is a V8 string.
 */
export const EXTERNAL_FROM = 1024 * 1024;

/**
 * The parts as one string. An all-ASCII text of EXTERNAL_FROM characters or more is laid out in
 * the scratch and decoded as latin1 (the same text): Node then keeps it in malloc'd memory that
 * glibc reuses, where a join is a fresh V8 string whose pages are faulted in (a 3.9 MB request at
 * the host: ~20 ms joined against ~1 ms this way, measured on a machine whose fresh pages are
 * slow, issue 19). Anything else (shorter, longer than the scratch, or not ASCII) is joined.
 */
export const joinText = (parts: readonly string[]): string => {
  let n = 0;
  for (const p of parts) n += p.length;
  if (n < EXTERNAL_FROM || n > MAX_SCRATCH) return parts.join('');
  // Only ASCII: a character past U+007F has more UTF-8 bytes than UTF-16 units.
  for (const p of parts) if (Buffer.byteLength(p) !== p.length) return parts.join('');
  const s = room(n);
  let at = 0;
  for (const p of parts) at += s.write(p, at, 'latin1');
  return s.toString('latin1', 0, at);
};

/**
 * The parts as one string, as joinText joins them. Bytes parts (a link's long line read as bytes,
 * line-reader.ts) are laid out in the scratch with the text parts and decoded once, as one whole
 * line is: never decoded part by part into strings the collector must copy first.
 */
export const joinParts = (parts: WireParts): string => {
  if (parts.every((p) => typeof p === 'string')) return joinText(parts as readonly string[]);
  let n = 0;
  for (const p of parts) n += Buffer.byteLength(p);
  if (n > MAX_SCRATCH) return parts.map((p) => (typeof p === 'string' ? p : decodeUtf8(p))).join('');
  const s = room(n);
  let at = 0;
  for (const p of parts) at += typeof p === 'string' ? s.write(p, at, 'utf8') : p.copy(s, at);
  return decodeUtf8(s.subarray(0, at));
};

/** The scratch, at least `n` bytes long, marked used now (its idle release waits IDLE_MS from here). */
const room = (n: number): Buffer => {
  if (!scratch || scratch.length < n) scratch = Buffer.allocUnsafeSlow(Math.min(MAX_SCRATCH, Math.ceil(n / STEP) * STEP));
  lastUse = Date.now();
  arm();
  return scratch;
};

/** The scratch's size now (0 when let go): for tests. */
export const scratchBytes = (): number => scratch?.length ?? 0;
