/**
 * One buffer per process in which a line's byte pieces are laid end to end just before the line
 * is decoded (line-reader.ts). Buffer.concat made a fresh buffer for every long line: ~8 ms of
 * page faults for a 3.9 MB answer on a machine whose fresh pages are slow (issue 19), on the
 * event loop every lane shares. The scratch's pages stay in memory between lines, so laying a
 * line out is a copy. The joined bytes are decoded at once, synchronously, and never kept: one
 * buffer serves every reader of the process. It grows to the longest line laid out (up to
 * MAX_SCRATCH; a longer one is concatenated as before) and is let go after IDLE_MS unused.
 */

/** A line longer than this is concatenated into a buffer of its own (the scratch never holds more). */
export const MAX_SCRATCH = 16 * 1024 * 1024;
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
  if (!scratch || scratch.length < n) scratch = Buffer.allocUnsafeSlow(Math.min(MAX_SCRATCH, Math.ceil(n / STEP) * STEP));
  let at = 0;
  for (const p of pieces) {
    if (at >= n) break;
    at += p.copy(scratch, at, 0, Math.min(p.length, n - at));
  }
  lastUse = Date.now();
  arm();
  return scratch.subarray(0, at);
};

/** The scratch's size now (0 when let go): for tests. */
export const scratchBytes = (): number => scratch?.length ?? 0;
