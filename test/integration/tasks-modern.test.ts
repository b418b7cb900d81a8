import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TASK_NOT_FOUND } from '../../src/link/protocol.js';
import { everythingServer, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { connectV1 } from '../helpers/v1-client.js';

/**
 * Revision 2026-07-28 moved tasks into the extension io.modelcontextprotocol/tasks. No SDK client
 * drives that extension yet (the v2 client knows its method names, not its flow), so these tests
 * speak it over raw HTTP, as its specification writes it, against the real gateway and
 * server-everything (a 2025-11-25 task server).
 */
const RESEARCH = 'every_simulate-research-query';
const TASKS = { 'io.modelcontextprotocol/tasks': {} };
const withTasks = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: TASKS } };

const policy = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
${everythingServer()}lanes:
  a: { servers: [everything] }
  b: { servers: [everything] }
`;

type Json = Record<string, unknown>;

describe('tasks for a 2026-07-28 lane (the tasks extension, over a 2025-11-25 upstream)', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  let seq = 0;
  const call = async (token: string, method: string, params: Json = {}): Promise<{ status: number; json: Json }> => {
    seq += 1;
    const taskId: Record<string, string> = typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {};
    // The extension's methods are asked with the extension declared (the 2026-07-28 client does so on every request).
    const declared = method.startsWith('tasks/') && params._meta === undefined ? { ...params, _meta: withTasks } : params;
    const r = await modernPost(gw.url, token, seq, method, declared, taskId);
    return { status: r.status, json: r.json ?? {} };
  };
  const start = async (token: string, args: Json): Promise<string> => {
    const r = await call(token, 'tools/call', { name: RESEARCH, arguments: args, _meta: withTasks });
    const result = r.json.result as Json;
    assert.equal(result.resultType, 'task', JSON.stringify(r.json));
    return String(result.taskId);
  };
  const poll = async (token: string, id: string, until: (t: Json) => boolean): Promise<Json> => {
    for (let i = 0; i < 200; i += 1) {
      const r = await call(token, 'tasks/get', { taskId: id });
      const t = r.json.result as Json | undefined;
      assert.ok(t, JSON.stringify(r.json));
      if (until(t)) return t;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`task ${id} never got there`);
  };

  before(async () => {
    gw = await startGateway(policy);
    ta = await gw.token('a');
    tb = await gw.token('b');
  });
  after(async () => gw.stop());

  it('server/discover declares the extension', async () => {
    const r = await call(ta, 'server/discover');
    assert.deepEqual(((r.json.result as Json).capabilities as Json).extensions, TASKS);
  });

  it('a task-only tool is refused with -32021 to a lane that did not declare the extension, naming it', async () => {
    const r = await call(ta, 'tools/call', { name: RESEARCH, arguments: { topic: 'x' } });
    const err = r.json.error as Json;
    assert.equal(err.code, -32021);
    assert.deepEqual(err.data, { requiredCapabilities: { extensions: TASKS } });
    assert.match(String(err.message), /simulate-research-query runs only as a task/);
  });

  it('tasks/get, tasks/update and tasks/cancel without the extension declared answer -32021, whatever the id', async () => {
    const id = await start(ta, { topic: 'gulls' });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
      for (const taskId of [id, 'gate-test']) {
        const r = await call(ta, method, { taskId, inputResponses: {}, _meta: {} });
        const err = r.json.error as Json;
        assert.equal(err.code, -32021, `${method} ${taskId}`);
        assert.deepEqual(err.data, { requiredCapabilities: { extensions: TASKS } });
      }
    // The refusals touched nothing: the task is still the lane's and still runs.
    const t = await poll(ta, id, (x) => x.status === 'completed');
    assert.match(textOf(t.result), /Research Report: gulls/);
    // The inlined result carries no 2025-11-25 related-task key (the task id is at the root).
    assert.equal(((t.result as Json)._meta as Json | undefined)?.['io.modelcontextprotocol/related-task'], undefined);
  });

  it('every_simulate-research-query completes: a task handle, polling, input as inputRequests answered by tasks/update, the result in tasks/get', async () => {
    const id = await start(ta, { topic: 'python', ambiguous: true });
    assert.match(id, /^every_task-[0-9a-f]{32}$/);
    const waiting = await poll(ta, id, (t) => t.status === 'input_required');
    const inputs = waiting.inputRequests as Record<string, { method: string; params: Json }>;
    const [key, req] = Object.entries(inputs)[0] ?? [];
    assert.ok(key && req);
    assert.equal(req.method, 'elicitation/create');
    assert.match(String(req.params.message), /multiple interpretations/);
    const ack = await call(ta, 'tasks/update', {
      taskId: id,
      inputResponses: { [key]: { action: 'accept', content: { interpretation: 'snake' } } },
    });
    assert.equal((ack.json.result as Json).resultType, 'complete');
    const done = await poll(ta, id, (t) => t.status === 'completed' || t.status === 'failed');
    assert.equal(done.status, 'completed');
    assert.equal(typeof done.ttlMs, 'number');
    assert.match(textOf(done.result), /Research Report: python \(snake\)/);
    assert.equal(done.resultType, 'complete');
  });

  it("another lane (either era) cannot poll, update or cancel a lane's task; tasks/list and tasks/result are not part of the extension", async () => {
    const id = await start(ta, { topic: 'kelp' });
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const r = await call(tb, method, { taskId: id, inputResponses: {} });
      assert.deepEqual(r.json.error, { code: -32602, message: TASK_NOT_FOUND }, method);
    }
    const legacyB = await connectV1(gw.url, tb);
    await assert.rejects(legacyB.client.experimental.tasks.getTask(id), (e: Error) => e.message.includes(TASK_NOT_FOUND));
    await legacyB.client.close();
    for (const method of ['tasks/list', 'tasks/result']) {
      const r = await call(ta, method, { taskId: id });
      assert.equal((r.json.error as Json).code, -32601, method);
      assert.match(String((r.json.error as Json).message), /not part of the io\.modelcontextprotocol\/tasks extension/);
    }
    // The owner's task ran on untouched.
    const t = await poll(ta, id, (x) => x.status === 'completed');
    assert.match(textOf(t.result), /Research Report: kelp/);
  });

  it("the extension's routing header must name the task, and tasks/result is refused as not in the extension for any id", async () => {
    const id = await start(ta, { topic: 'terns' });
    const bad = await modernPost(gw.url, ta, 900, 'tasks/get', { taskId: id, _meta: withTasks }, { 'mcp-name': 'every_task-other' });
    assert.equal(bad.status, 400);
    assert.equal((bad.json?.error as Json | undefined)?.code, -32020);
    for (const taskId of [id, 'nobody_task-x']) {
      const r = await call(ta, 'tasks/result', { taskId });
      assert.equal((r.json.error as Json).code, -32601, taskId);
    }
    await call(ta, 'tasks/cancel', { taskId: id });
  });

  it('a lane cancels its own task: acknowledged, then cancelled', async () => {
    const id = await start(ta, { topic: 'eels' });
    const r = await call(ta, 'tasks/cancel', { taskId: id });
    assert.equal((r.json.result as Json).resultType, 'complete', JSON.stringify(r.json));
    const t = await poll(ta, id, (x) => x.status !== 'working');
    assert.equal(t.status, 'cancelled');
  });
});
