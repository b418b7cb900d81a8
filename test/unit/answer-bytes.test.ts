import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerBytes } from '../../src/host/answer-bytes.js';
import { answerSize, noteAnswerSize } from '../../src/rpc/answer-size.js';

describe("AnswerBytes: a lane's answers a host holds while it checks them", () => {
  const limits = { perLane: 100, total: 250 };

  it('lets the first answer through whatever its size, and refuses one that would take a lane past its bound', () => {
    const b = new AnswerBytes(() => limits);
    const first = b.hold('a', 150);
    assert.ok(first.ok, 'the first is never refused (it is under resultBytes already)');
    const second = b.hold('a', 1);
    assert.deepEqual(second, { ok: false, setting: 'gateway.limits.unsentBytesPerLane', limit: 100, held: 150 });
    assert.equal(b.of('a'), 150);
    first.release();
    assert.equal(b.of('a'), 0);
    assert.ok(b.hold('a', 60).ok);
    assert.ok(b.hold('a', 40).ok, 'up to the bound exactly');
    assert.equal(b.hold('a', 1).ok, false);
  });

  it('counts each lane on its own, and all lanes against the total', () => {
    const b = new AnswerBytes(() => limits);
    assert.ok(b.hold('a', 100).ok);
    assert.ok(b.hold('b', 100).ok, "lane a's answers do not count against lane b");
    const c = b.hold('c', 60);
    assert.deepEqual(c, { ok: false, setting: 'gateway.limits.unsentBytes', limit: 250, held: 200 });
    assert.equal(b.total, 200);
  });

  it('holds nothing for a short answer, and a release is counted once', () => {
    const b = new AnswerBytes(() => limits);
    const short = b.hold('a', 0);
    assert.ok(short.ok);
    assert.equal(b.of('a'), 0);
    const h = b.hold('a', 80);
    assert.ok(h.ok);
    const other = b.hold('a', 20);
    assert.ok(other.ok);
    h.release();
    h.release();
    assert.equal(b.of('a'), 20, 'a second release of the same hold frees nothing more');
    assert.equal(b.total, 20);
  });

  it('reads its limits at each hold (a reload takes effect for the next answer)', () => {
    let perLane = 100;
    const b = new AnswerBytes(() => ({ perLane, total: 1000 }));
    assert.ok(b.hold('a', 60).ok);
    assert.equal(b.hold('a', 60).ok, false);
    perLane = 200;
    assert.ok(b.hold('a', 60).ok);
  });
});

describe('answerSize: the length of the line a result came on', () => {
  it('is what was noted for that very object, and 0 for any other value', () => {
    const r = { content: [] };
    noteAnswerSize(r, 4321);
    assert.equal(answerSize(r), 4321);
    assert.equal(answerSize({ content: [] }), 0, 'an equal object is not the same answer');
    assert.equal(answerSize(undefined), 0);
    noteAnswerSize('text', 10);
    assert.equal(answerSize('text'), 0);
  });
});
