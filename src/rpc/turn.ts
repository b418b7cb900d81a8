/**
 * Turns of the event loop for large work. A long computation awaits `turn()` between its steps
 * (the front's depth check and parse of a large body, each pass of a large secret scan, the
 * serialisation after it) so that other lanes' messages, already read and waiting in the poll
 * phase, are handled in between. (A link's reader and writers take their large lines' steps in
 * the next iteration instead: lines queue behind those, and must not wait behind this queue.) The steps waiting for a turn form ONE queue per process, and each loop iteration
 * releases only the first of them: with several large messages in flight, another lane's small
 * message waits behind one such step, not behind a step of each of them run back to back (as
 * with plain setImmediate, whose queue runs whole in one check phase). Bounded: one release per
 * iteration, and a release never waits for anything.
 */
const waiting: (() => void)[] = [];
let scheduled = false;

const release = (): void => {
  const next = waiting.shift();
  if (waiting.length > 0) setImmediate(release);
  else scheduled = false;
  next?.();
};

/** Runs `f` in a later iteration of the event loop, after the steps queued before it, one step an iteration. */
export const onTurn = (f: () => void): void => {
  waiting.push(f);
  if (!scheduled) {
    scheduled = true;
    setImmediate(release);
  }
};

/** One turn (see onTurn). */
export const turn = (): Promise<void> =>
  new Promise((resolve) => {
    onTurn(resolve);
  });

/**
 * A message this long (in characters) takes its whole-message steps (read, parse, check,
 * serialise, write) in turns of their own, so another lane's small message waits behind one
 * such step, not behind all of them at once (issue 19). Below it, nothing changes.
 */
export const LARGE_TURN_CHARS = 256 * 1024;
