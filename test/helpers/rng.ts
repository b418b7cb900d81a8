/** A small seeded generator (xorshift32): the same draws in [0, 1) every run, for reproducible fuzzing. */
export const seeded = (seed: number): (() => number) => {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
};
