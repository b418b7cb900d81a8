import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_PROGRESS_TOKEN, paramsProblem, text } from '../../src/front/mcp/param-checks.js';
import { isProgressToken, progressTokenProblem } from '../../src/front/mcp/progress-token.js';
import { classifyInbound } from '../../src/front/transport/classify.js';
import { clearQueue, dequeue, enqueue, MAX_QUEUED, MAX_QUEUED_BYTES } from '../../src/front/transport/sse-pump.js';

const hostile = { toString: 1 };

describe('request params are checked before anything reads them', () => {
  it('names and URIs must be strings: an object, an array or a hostile toString is invalid params', () => {
    for (const name of [hostile, ['every_echo'], 7, null, undefined])
      assert.match(paramsProblem('tools/call', { name }) ?? '', /params\.name must be a string/, JSON.stringify(name));
    assert.match(paramsProblem('prompts/get', { name: hostile }) ?? '', /params\.name/);
    for (const m of ['resources/read', 'resources/subscribe', 'resources/unsubscribe'])
      assert.match(paramsProblem(m, { uri: ['every+x'] }) ?? '', /params\.uri must be a string/, m);
    assert.match(paramsProblem('completion/complete', { ref: { type: 'ref/prompt', name: hostile } }) ?? '', /ref\.name/);
    assert.match(paramsProblem('completion/complete', { ref: 'x' }) ?? '', /ref must be an object/);
    assert.match(paramsProblem('tools/call', { name: 'x', arguments: [1] }) ?? '', /arguments must be an object/);
    assert.match(paramsProblem('tools/call', [1, 2]) ?? '', /params must be an object/);
  });
  it('a task method names its task by a string id; a tasks/list cursor is a string', () => {
    for (const m of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      assert.match(paramsProblem(m, { taskId: hostile }) ?? '', /params\.taskId must be a string/, m);
      assert.match(paramsProblem(m, {}) ?? '', /params\.taskId must be a string/, m);
      assert.equal(paramsProblem(m, { taskId: 'every_task-1' }), undefined);
    }
    assert.match(paramsProblem('tasks/list', { cursor: 3 }) ?? '', /cursor/);
    assert.equal(paramsProblem('tasks/list', {}), undefined);
  });
  it('logging/setLevel needs a real level', () => {
    assert.match(paramsProblem('logging/setLevel', { level: hostile }) ?? '', /logging level/);
    assert.equal(paramsProblem('logging/setLevel', { level: 'warning' }), undefined);
  });
  it('well-formed params pass; methods it does not know are left to the method', () => {
    assert.equal(paramsProblem('tools/call', { name: 'every_echo', arguments: { message: 'x' } }), undefined);
    assert.equal(paramsProblem('resources/read', { uri: 'every+demo://a' }), undefined);
    assert.equal(paramsProblem('completion/complete', { ref: { type: 'ref/resource', uri: 'u' }, argument: {} }), undefined);
    assert.equal(paramsProblem('tools/list', undefined), undefined);
    assert.equal(paramsProblem('toString', {}), undefined);
  });
  it('text() never calls a lane-supplied toString', () => {
    assert.equal(text(hostile), '');
    assert.equal(text('a'), 'a');
    assert.equal(text(['a']), '');
  });
});

describe('what a lane may ask the gateway to repeat back is bounded', () => {
  it('a progress token is a number or a short string, whatever the method', () => {
    for (const method of ['tools/call', 'prompts/get', 'resources/read', 'tools/list']) {
      const p = (progressToken: unknown) => ({ name: 'x', uri: 'u://x', _meta: { progressToken } });
      assert.equal(paramsProblem(method, p(7)), undefined);
      assert.equal(paramsProblem(method, p('t'.repeat(MAX_PROGRESS_TOKEN))), undefined);
      assert.match(paramsProblem(method, p('t'.repeat(MAX_PROGRESS_TOKEN + 1))) ?? '', /progressToken/);
      for (const bad of [{}, [], true, Number.NaN, null]) assert.match(paramsProblem(method, p(bad)) ?? '', /progressToken/, String(bad));
      assert.match(paramsProblem(method, { name: 'x', uri: 'u://x', _meta: 'x' }) ?? '', /_meta must be an object/);
    }
  });

  it('a stream whose client does not read keeps at most MAX_QUEUED messages, dropping the oldest notification, never a request', () => {
    const q: Record<string, unknown>[] = [{ jsonrpc: '2.0', id: 'r1', method: 'sampling/createMessage' }];
    for (let i = 0; i < MAX_QUEUED * 3; i++) enqueue(q, { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: i } });
    assert.equal(q.length, MAX_QUEUED);
    assert.equal(q[0]?.id, 'r1', "the server's request stays");
    assert.deepEqual(q.at(-1)?.params, { progress: MAX_QUEUED * 3 - 1 }, 'the newest progress is kept');
  });

  it('the bytes a queue holds are kept as messages leave it: taking some makes room, and nothing is dropped early', () => {
    const q: Record<string, unknown>[] = [];
    const mb = 'x'.repeat(1024 * 1024);
    const note = (i: number) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: mb, i } });
    for (let i = 0; i < 15; i++) enqueue(q, note(i));
    assert.equal(q.length, 15, '15 MB fit under 16 MiB');
    const first = dequeue(q);
    assert.equal(JSON.parse(first ?? '{}').params.i, 0, 'taken in order, as the text written');
    for (let i = 0; i < 5; i++) dequeue(q);
    for (let i = 15; i < 21; i++) enqueue(q, note(i));
    assert.equal(q.length, 15, 'the six taken made room for six more: none dropped');
    assert.equal((q[0]?.params as { i?: number } | undefined)?.i, 6);
    clearQueue(q);
    for (let i = 0; i < 15; i++) enqueue(q, note(100 + i));
    assert.equal(q.length, 15, 'a cleared queue holds nothing against new messages');
    assert.equal(dequeue([]), undefined);
  });

  it('and at most MAX_QUEUED_BYTES of them: large notifications are dropped oldest first, a request never', () => {
    const q: Record<string, unknown>[] = [
      { jsonrpc: '2.0', id: 'r1', method: 'elicitation/create', params: { big: 'y'.repeat(1024 * 1024) } },
    ];
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 100; i++) enqueue(q, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: big, i } });
    const bytes = q.reduce((n, m) => n + JSON.stringify(m).length, 0);
    assert.ok(bytes <= MAX_QUEUED_BYTES, `${bytes} bytes queued`);
    assert.equal(q[0]?.id, 'r1');
    assert.equal((q.at(-1)?.params as { i?: number } | undefined)?.i, 99);
    assert.ok(q.length > 10 && q.length < 20);
  });
});

describe('a progress token is checked under one rule', () => {
  it('the classifier refuses exactly the tokens of the wrong shape; the front then refuses only the too long ones', () => {
    const tokens: unknown[] = [
      7,
      0,
      -3,
      'x',
      't'.repeat(MAX_PROGRESS_TOKEN),
      't'.repeat(MAX_PROGRESS_TOKEN + 1),
      1.5,
      Number.NaN,
      {},
      [],
      true,
      null,
    ];
    for (const progressToken of tokens) {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken } } };
      const classified = classifyInbound({ body, protocolVersionHeader: undefined, mcpMethodHeader: undefined });
      const label = typeof progressToken === 'string' ? `string of ${progressToken.length}` : String(progressToken);
      assert.equal(classified.kind === 'reject', !isProgressToken(progressToken), label);
      const problem = progressTokenProblem(progressToken);
      if (classified.kind !== 'reject') assert.equal(problem !== undefined, (progressToken as string).length > MAX_PROGRESS_TOKEN, label);
      else assert.ok(problem, `${label}: the whole rule holds the shape too`);
      assert.equal(paramsProblem('tools/call', body.params), problem, label);
    }
  });
});
