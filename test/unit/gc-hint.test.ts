import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GcHint } from '../../src/rpc/gc-hint.js';

const MB = 1024 * 1024;
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('the collection hint for large text (issue 19)', () => {
  const rig = (heap: number) => {
    let now = 1_000;
    let used = heap;
    let collected = 0;
    const hint = new GcHint(
      32 * MB,
      200,
      () => now,
      128 * MB,
      () => used,
      () => {
        collected += 1;
      },
    );
    const later = (ms: number): void => {
      now += ms;
    };
    const use = (b: number): void => {
      used = b;
    };
    return { hint, collected: () => collected, later, use };
  };

  it('forces no collection while the heap in use is under the floor, however much text passes', async () => {
    const r = rig(60 * MB);
    for (let i = 0; i < 20; i += 1) {
      r.hint.note(8 * MB);
      r.later(300);
    }
    await turn();
    assert.equal(r.collected(), 0);
  });

  it('collects after a turn once the heap is past the floor, and at most once per gap', async () => {
    const r = rig(60 * MB);
    r.hint.note(40 * MB);
    r.use(300 * MB);
    r.hint.note(40 * MB);
    assert.equal(r.collected(), 0, 'not in the turn that read the line');
    await turn();
    assert.equal(r.collected(), 1);
    r.later(50);
    r.hint.note(40 * MB);
    await turn();
    assert.equal(r.collected(), 1, 'not again within 200 ms');
    r.later(250);
    r.hint.note(40 * MB);
    await turn();
    assert.equal(r.collected(), 2);
  });
});
