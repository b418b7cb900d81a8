import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDistinctive, TRIPWIRE, Tripwire, tokensOf } from '../../src/shareability/tripwire.js';

const call = (text: string) => ({ name: 'note', arguments: { text } });
const answer = (text: string) => ({ content: [{ type: 'text', text }] });
const A = 'lgcanary0123456789abcdef';
const B = 'order-7f3a9b2c1d-alpha';

describe('tripwire: distinctive tokens', () => {
  it('identifiers, keys and canaries are distinctive; words, numbers and repetitive runs are not', () => {
    for (const t of [A, B, 'sk_live_51HxYz9AbCdEf', 'user42-session-9x8y7z']) assert.equal(isDistinctive(t), true, t);
    for (const t of ['internationalization', '123456789012345', 'aaaaaaaaaaa1', 'ab12ab12ab12', 'short1'])
      assert.equal(isDistinctive(t), false, t);
  });

  it('tokens are whole runs, cut to the maximum length', () => {
    assert.deepEqual(tokensOf(`noted: ${A}; path /tmp/${B}/x.txt`), [A, B]);
    const long = `k${'0123456789abcdefghij'.repeat(10)}`;
    assert.deepEqual(tokensOf(long), [long.slice(0, TRIPWIRE.maxToken)]);
  });

  it('a run of millions of characters is one token, judged whole, in any script (no stack overflow)', () => {
    // 3.4 million two-byte characters overflowed the backtracking stack of an unbounded repeat.
    for (const unit of ['中', 'a']) {
      const run = `${unit.repeat(3_400_000)}Zq7x9`;
      const got = tokensOf(`see ${run} end`);
      assert.deepEqual(got, [run.slice(0, TRIPWIRE.maxToken)], `a run of ${unit}`);
    }
    // Judged on the whole run: its only digit comes 10,000 characters in.
    const late = `${'abcdefgh'.repeat(1250)}9`;
    assert.deepEqual(tokensOf(`x ${late} y ${A}`), [late.slice(0, TRIPWIRE.maxToken), A]);
  });
});

describe('tripwire: an answer carrying text only another lane sent', () => {
  it('is caught, naming the lanes that sent it', () => {
    const w = new Tripwire();
    w.sent('a', call(`remember ${A}`));
    w.sent('b', call('remember nothing special'));
    assert.deepEqual(w.check('b', answer(`noted; previous: remember ${A}`)), { token: A, from: ['a'] });
  });

  it('is caught inside nested structured content and error-like shapes', () => {
    const w = new Tripwire();
    w.sent('a', call(A));
    assert.equal(w.check('b', { structuredContent: { items: [{ deep: { text: `x ${A} y` } }] } })?.token, A);
  });

  it('an echo of the lane’s own text is not a leak', () => {
    const w = new Tripwire();
    w.sent('a', call(A));
    assert.equal(w.check('a', answer(`Echo: ${A}`)), undefined);
  });

  it('text both lanes sent is not a leak for either', () => {
    const w = new Tripwire();
    w.sent('a', call(`/srv/${B}/report.txt`));
    w.sent('b', call(`/srv/${B}/report.txt`));
    assert.equal(w.check('b', answer(`contents of /srv/${B}/report.txt`)), undefined);
    assert.equal(w.check('a', answer(`contents of /srv/${B}/report.txt`)), undefined);
  });

  it('text of the server’s own, seen in an answer before any lane sent it, is never a leak', () => {
    const w = new Tripwire();
    // Lane b lists a directory; lane a then reads a file named there; lane b lists again.
    assert.equal(w.check('b', answer(`[FILE] ${B}.txt`)), undefined);
    w.sent('a', call(`/root/${B}.txt`));
    assert.equal(w.check('b', answer(`[FILE] ${B}.txt`)), undefined);
  });

  it('a lane’s text the server has not shown before IS caught even when it looks like a path', () => {
    const w = new Tripwire();
    w.sent('a', call(`/root/${B}.txt`));
    assert.deepEqual(w.check('b', answer(`[FILE] ${B}.txt`))?.from, ['a']);
  });

  it('every suspect in an answer is listed once; an absolved one is the server’s own from then on', () => {
    const w = new Tripwire();
    w.sent('a', call(`${A} and ${B}`));
    assert.deepEqual(
      w.suspects('b', answer(`${B} ${A} ${B}`)).map((l) => l.token),
      [B, A],
    );
    w.absolve(B);
    assert.deepEqual(
      w.suspects('b', answer(`${B} ${A}`)).map((l) => l.token),
      [A],
    );
    w.sent('a', call(B));
    assert.equal(w.check('b', answer(B)), undefined, 'a lane sending it again does not make it a lane’s text');
  });

  it('_meta and the tool name are not the lane’s text', () => {
    const w = new Tripwire();
    w.sent('a', { name: 'tool0123456789ab', arguments: {}, _meta: { progressToken: A } });
    assert.equal(w.check('b', answer(`tool0123456789ab ${A}`)), undefined);
  });
});

describe('tripwire: bounded memory', () => {
  it('remembers at most TRIPWIRE.remembered sent tokens and TRIPWIRE.serverOwn of the server’s, oldest out first', () => {
    const w = new Tripwire();
    for (let i = 0; i < TRIPWIRE.remembered + 500; i += 1) w.sent('a', call(`lane-a-token-${i}x`));
    assert.equal(w.size.senders, TRIPWIRE.remembered);
    // The newest are kept, the oldest forgotten.
    assert.ok(w.check('b', answer(`lane-a-token-${TRIPWIRE.remembered + 499}x`)));
    assert.equal(w.check('b', answer('lane-a-token-0x')), undefined);
    for (let i = 0; i < TRIPWIRE.serverOwn + 500; i += 1) w.check('a', answer(`server-own-${i}q`));
    assert.equal(w.size.own, TRIPWIRE.serverOwn);
  });

  it('takes at most TRIPWIRE.perRequest tokens from one request', () => {
    const w = new Tripwire();
    w.sent('a', call(Array.from({ length: 1000 }, (_, i) => `many-tokens-${i}z`).join(' ')));
    assert.equal(w.size.senders, TRIPWIRE.perRequest);
  });
});
