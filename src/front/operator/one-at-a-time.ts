/**
 * A task that must not overlap itself (a policy reload): run now when idle; asked while it runs,
 * it runs once more after it, and every ask meanwhile shares that one next run. Overlapping
 * reloads (two SIGHUPs a moment apart) configured the hosts in either order, and the older
 * policy could be the one left applied; a run after the last ask reads what is there then.
 */
export const oneAtATime = <T>(run: () => Promise<T>): (() => Promise<T>) => {
  let running: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const p = run().finally(() => {
      if (running === p) running = undefined;
    });
    running = p;
    return p;
  };
  return () => {
    if (!running) return start();
    if (!next) {
      next = running
        .catch(() => undefined)
        .then(() => {
          next = undefined;
          return start();
        });
    }
    return next;
  };
};
