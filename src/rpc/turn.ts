/**
 * Turns of the event loop for large work. A long computation awaits `turn()` between its steps
 * (the front's depth check and parse of a large body, each pass of a large secret scan, the
 * serialisation after it) so that other lanes' messages, already read and waiting in the poll
 * phase, are handled in between. (A link's reader and writers put their large lines' steps
 * first, onTurnFirst: lines queue behind those, and must not wait behind scan passes.) The
 * steps waiting for a turn form ONE queue per process, and each loop iteration
 * releases only the first of them: with several large messages in flight, another lane's small
 * message waits behind one such step, not behind a step of each of them run back to back (as
 * with plain setImmediate, whose queue runs whole in one check phase). Bounded: one release per
 * iteration, and a release never waits for anything.
 */
const waiting: (() => void)[] = [];
/** Steps that lines wait behind (a link's long line read or written): released before `waiting`. */
const first: (() => void)[] = [];
let scheduled = false;

const release = (): void => {
  const next = first.length > 0 ? first.shift() : waiting.shift();
  if (first.length > 0 || waiting.length > 0) setImmediate(release);
  else scheduled = false;
  next?.();
};

const schedule = (): void => {
  if (!scheduled) {
    scheduled = true;
    setImmediate(release);
  }
};

/**
 * `onTurn` for a step that other lines wait behind in order (a long line's parse, a slice or piece
 * of a long line written): it goes before every step in the one queue (scan passes of other
 * messages, which nothing waits behind in order), and still one step an iteration, so a poll
 * phase comes between any two large steps. Its queue holds at most a step per reader and writer.
 */
export const onTurnFirst = (f: () => void): void => {
  first.push(f);
  schedule();
};

/** Runs `f` in a later iteration of the event loop, after the steps queued before it, one step an iteration. */
export const onTurn = (f: () => void): void => {
  waiting.push(f);
  schedule();
};

/** One turn (see onTurn). */
export const turn = (): Promise<void> =>
  new Promise((resolve) => {
    onTurn(resolve);
  });

/** One turn of onTurnFirst's kind (a step that lines wait behind, in order). */
export const turnFirst = (): Promise<void> =>
  new Promise((resolve) => {
    onTurnFirst(resolve);
  });

/**
 * A message this long (in characters) takes its whole-message steps (read, parse, check,
 * serialise, write) in turns of their own, so another lane's small message waits behind one
 * such step, not behind all of them at once (issue 19). Below it, nothing changes.
 */
export const LARGE_TURN_CHARS = 256 * 1024;
