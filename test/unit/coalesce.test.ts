import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Coalescer } from '../../src/host/coalesce.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Waits (at most 3 s) until `done`: the coalescing gaps are tens of milliseconds, and a loaded
 * machine (the suite's phase 1) can run a timer long after it is due. What the tests assert is
 * how many runs there are once things settle, not how soon.
 */
const until = async (done: () => boolean): Promise<void> => {
  for (let waited = 0; !done() && waited < 3000; waited += 5) await sleep(5);
};

describe('list_changed re-vets, coalesced (attack round 8, finding 7)', () => {
  it('a burst of 200 asks runs the job twice (the first, and one after), and the last one runs after the last ask', async () => {
    const c = new Coalescer(30);
    let runs = 0;
    let seen = 0;
    let value = 0;
    const job = async (): Promise<void> => {
      runs += 1;
      await sleep(5);
      seen = value;
    };
    for (let i = 1; i <= 200; i += 1) {
      value = i;
      c.run('every\0shared', job);
    }
    await until(() => runs >= 2 && seen === 200);
    // Settled: no third run comes after another gap.
    await sleep(100);
    assert.equal(runs, 2);
    assert.equal(seen, 200, 'the trailing run saw the last change');
  });

  it('keys are independent, and a quiet key runs at once again after its gap', async () => {
    const c = new Coalescer(20);
    const runs: string[] = [];
    c.run('a', async () => void runs.push('a'));
    c.run('b', async () => void runs.push('b'));
    assert.equal(c.busy('a'), true, 'within its gap');
    await until(() => !c.busy('a'));
    c.run('a', async () => void runs.push('a2'));
    // At once: the job starts inside run() itself, before anything else gets a turn.
    assert.deepEqual(runs, ['a', 'b', 'a2']);
  });

  it('the run after a burst is the latest ask’s job', async () => {
    const c = new Coalescer(10);
    const ran: string[] = [];
    for (const tag of ['first', 'second', 'third']) c.run('k', async () => void ran.push(tag));
    await until(() => ran.length >= 2);
    await sleep(50);
    assert.deepEqual(ran, ['first', 'third']);
  });

  it('a job that fails does not stop the next one', async () => {
    const c = new Coalescer(10);
    let runs = 0;
    const job = async (): Promise<void> => {
      runs += 1;
      throw new Error('listing failed');
    };
    c.run('k', job);
    c.run('k', job);
    await until(() => runs >= 2);
    await sleep(30);
    assert.equal(runs, 2);
  });
});
