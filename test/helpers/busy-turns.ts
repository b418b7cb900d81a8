import { onTurn } from '../../src/rpc/turn.js';

/**
 * Queues `n` steps of `ms` milliseconds of busy work in turn.ts's one queue (other lanes' large
 * work waiting for its turns); returns how many have run so far, and a wait for all of them.
 */
export const queueBusySteps = (n: number, ms: number): { run: () => number; all: () => Promise<void> } => {
  let run = 0;
  for (let i = 0; i < n; i += 1)
    onTurn(() => {
      const until = performance.now() + ms;
      while (performance.now() < until);
      run += 1;
    });
  return {
    run: () => run,
    all: async () => {
      for (let i = 0; i < 1000 && run < n; i += 1) await new Promise((r) => setTimeout(r, 20));
    },
  };
};
