import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FairShare } from '../../src/front/transport/fair-share.js';

const setup = () => {
  let now = 1_000;
  const fair = new FairShare(
    () => ({ perLane: 10, budget: 8, minShare: 2, activeMs: 250 }),
    () => now,
  );
  return { fair, advance: (ms: number) => (now += ms) };
};

const run = (fair: FairShare, lane: string): (() => void) => {
  const a = fair.enter(lane);
  assert.equal(a.kind, 'run', `${lane} runs at once`);
  return a.kind === 'run' ? a.release : () => undefined;
};

describe('fair shares of calls in flight', () => {
  it('a lane alone may use its whole per-lane limit, then is full', () => {
    const { fair } = setup();
    for (let i = 0; i < 10; i += 1) run(fair, 'flood');
    assert.equal(fair.enter('flood').kind, 'full');
  });

  it('while two lanes are active each runs at most budget/2; the rest waits its turn, FIFO', async () => {
    const { fair } = setup();
    const quiet = run(fair, 'quiet');
    const flood = Array.from({ length: 4 }, () => run(fair, 'flood'));
    const waiting = fair.enter('flood');
    assert.equal(waiting.kind, 'wait', 'the flood is at its share (8/2)');
    const second = fair.enter('flood');
    assert.equal(fair.inFlightOf('flood'), 4);
    run(fair, 'quiet'); // the quiet lane is far under its share: it never waits
    flood[0]?.();
    assert.equal(fair.inFlightOf('flood'), 4, 'one ended, the first waiting one started');
    if (waiting.kind === 'wait') assert.equal(typeof (await waiting.started), 'function');
    assert.equal(second.kind, 'wait');
    quiet();
  });

  it('when the other lane goes quiet, the share grows back and waiting calls start', async () => {
    const { fair, advance } = setup();
    const q = run(fair, 'quiet');
    for (let i = 0; i < 4; i += 1) run(fair, 'flood');
    const w = fair.enter('flood');
    assert.equal(w.kind, 'wait');
    q();
    advance(300); // quiet has been idle past activeMs
    fair.tick();
    assert.equal(fair.inFlightOf('flood'), 5);
    if (w.kind === 'wait') await w.started;
  });

  it('a waiting call whose client went away gives up its place', () => {
    const { fair } = setup();
    run(fair, 'quiet');
    const flood = Array.from({ length: 4 }, () => run(fair, 'flood'));
    const w = fair.enter('flood');
    if (w.kind === 'wait') w.cancel();
    flood[0]?.();
    assert.equal(fair.inFlightOf('flood'), 3, 'nobody was waiting any more');
  });

  it('many active lanes still get at least the minimum share; a release is idempotent', () => {
    const { fair } = setup();
    for (const l of ['a', 'b', 'c', 'd', 'e']) run(fair, l);
    assert.equal(fair.share('a'), 2, 'floor(8/5)=1, raised to the minimum 2');
    const r = run(fair, 'a');
    r();
    r();
    assert.equal(fair.inFlightOf('a'), 1);
  });
});
