import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerTurns, callKey, EXPECT_KEYS, EXPECT_MS } from '../../src/host/answer-turns.js';
import { ERR, RpcFailure } from '../../src/rpc/jsonrpc.js';
import { resultTooLarge } from '../../src/rpc/too-large.js';

describe('AnswerTurns: a call that answered large waits for the lane’s other such calls', () => {
  const key = callKey('a', 'memory', 'tools/call', { name: 'read_graph' });

  it('expects what the call answered last while it is recent; a short answer clears it', () => {
    let now = 0;
    const t = new AnswerTurns(
      () => 100,
      () => now,
    );
    assert.equal(t.expected(key), 0);
    t.note(key, 80);
    assert.equal(t.expected(key), 80);
    assert.equal(t.expected(callKey('b', 'memory', 'tools/call', { name: 'read_graph' })), 0, 'per lane');
    assert.equal(t.expected(callKey('a', 'memory', 'tools/call', { name: 'open_nodes' })), 0, 'per target');
    t.note(key, 0);
    assert.equal(t.expected(key), 0);
    t.note(key, 80);
    now = EXPECT_MS + 1;
    assert.equal(t.expected(key), 0, 'forgotten after EXPECT_MS');
  });

  it('remembers at most EXPECT_KEYS calls, forgetting the oldest', () => {
    const t = new AnswerTurns(() => 100);
    for (let i = 0; i <= EXPECT_KEYS; i += 1) t.note(`k${i}`, 10);
    assert.equal(t.expected('k0'), 0);
    assert.equal(t.expected(`k${EXPECT_KEYS}`), 10);
  });

  it('runs a call never seen large at once, and the first large one whatever its size; the next waits for it', async () => {
    const t = new AnswerTurns(() => 100);
    const fresh = t.take('a', 'never-seen');
    assert.equal(typeof fresh, 'function', 'a call never seen large runs at once, with no promise');
    (fresh as () => void)();
    t.note(key, 80);
    const first = await t.take('a', key);
    let second: (() => void) | undefined;
    const waiting = Promise.resolve(t.take('a', key)).then((r) => {
      second = r;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(second, undefined, '80 + 80 is over 100: it waits');
    assert.equal(t.inFlightOf('a'), 80);
    // Another lane is not held by lane a.
    ((await t.take('b', callKey('b', 'x', 'tools/call', {}))) as () => void)();
    first();
    await waiting;
    assert.ok(second, 'it ran once the first ended');
    (second as (() => void) | undefined)?.();
    assert.equal(t.inFlightOf('a'), 0);
  });

  it('a call whose lane gave up while it waited is refused and holds nothing, even if its turn came in the same moment', async () => {
    const t = new AnswerTurns(() => 100);
    t.note(key, 80);
    const first = await t.take('a', key);
    const gone = new AbortController();
    const waiting = Promise.resolve(t.take('a', key, gone.signal));
    gone.abort();
    await assert.rejects(waiting, /cancelled while waiting/);
    first();
    assert.equal(t.inFlightOf('a'), 0, 'the queue entry was taken out');
    // Its turn starts, then the abort comes before the waiter sees it: the turn is given back.
    const held = await t.take('a', key);
    const late = new AbortController();
    const racing = Promise.resolve(t.take('a', key, late.signal));
    held();
    late.abort();
    await assert.rejects(racing, /cancelled while waiting/);
    await new Promise((r) => setImmediate(r));
    assert.equal(t.inFlightOf('a'), 0, 'the started turn was released');
  });

  it('a call refused for its size is expected that large next time; any other failure changes nothing', () => {
    const t = new AnswerTurns(() => 100);
    t.noteRefused(key, new RpcFailure(resultTooLarge('memory', 52_809_523, 33_554_432)));
    assert.equal(t.expected(key), 52_809_523);
    const other = callKey('a', 'memory', 'tools/call', { name: 'open_nodes' });
    t.noteRefused(other, new RpcFailure({ code: ERR.timeout, message: 'timed out' }));
    t.noteRefused(other, new Error('not an RPC failure'));
    assert.equal(t.expected(other), 0);
  });
});
