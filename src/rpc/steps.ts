/**
 * Work written as steps (a generator whose every `yield` is a place to pause): run to its end at
 * once, or paced, `pause` at each yield. The paced JSON codec's scans, parses and serialisations
 * are written this way (json-tokens.ts, paced-many.ts, long-value.ts, paced-stringify.ts). Pure.
 */

/** Runs steps to their end without pausing. */
export const runSteps = <T>(steps: Generator<void, T>): T => {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
};

/** Runs steps to their end, `pause` at each yield. */
export const drive = async <T>(steps: Generator<void, T>, pause: () => Promise<void>): Promise<T> => {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await pause();
  }
};
