import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneAtATime } from '../../src/front/operator/one-at-a-time.js';

describe('oneAtATime: a reload never overlaps another', () => {
  /** A task whose runs are held open until released, recording how many overlap. */
  const held = () => {
    const gates: (() => void)[] = [];
    let open = 0;
    let most = 0;
    let runs = 0;
    let state = 'v1';
    const run = async (): Promise<string> => {
      runs += 1;
      open += 1;
      most = Math.max(most, open);
      const seen = state;
      await new Promise<void>((r) => gates.push(r));
      open -= 1;
      return seen;
    };
    const set = (s: string): void => {
      state = s;
    };
    return { run, gates, stats: () => ({ runs, most }), set };
  };
  const tick = () => new Promise((r) => setImmediate(r));

  it('runs at once when idle; asks during a run share ONE run after it, which reads the state as it is then', async () => {
    const h = held();
    const ask = oneAtATime(h.run);
    const first = ask();
    h.set('v2');
    const second = ask();
    h.set('v3');
    const third = ask();
    assert.equal(second, third, 'asks during a run share the next run');
    await tick();
    assert.equal(h.stats().runs, 1, 'the next run waits for the first');
    h.gates.shift()?.();
    assert.equal(await first, 'v1');
    await tick();
    assert.equal(h.stats().runs, 2);
    h.gates.shift()?.();
    assert.equal(await second, 'v3', 'the run after the last ask reads the latest state');
    assert.equal(h.stats().most, 1, 'never two at once');
    const fourth = ask();
    await tick();
    h.gates.shift()?.();
    assert.equal(await fourth, 'v3');
    assert.equal(h.stats().runs, 3);
  });

  it('a run that fails does not stop the next', async () => {
    let n = 0;
    const ask = oneAtATime(async () => {
      n += 1;
      await new Promise((r) => setImmediate(r));
      if (n === 1) throw new Error('refused');
      return n;
    });
    const a = ask();
    const b = ask();
    await assert.rejects(a, /refused/);
    assert.equal(await b, 2);
  });
});
