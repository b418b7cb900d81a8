import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { everythingServer, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { connectV1 } from '../helpers/v1-client.js';

const ASYNC = 'every_trigger-sampling-request-async';

const policy = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
${everythingServer()}lanes:
  a: { servers: [everything] }
  b: { servers: [everything] }
`;

const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'sampled as a task' }, model: 'test-model', stopReason: 'endTurn' };

/** A lane's SDK v1 client that runs sampling as a client-side task when asked to (or at once if not). */
const taskingClient = async (url: string, token: string, withTasks: boolean) => {
  const caps = withTasks ? { sampling: {}, tasks: { requests: { sampling: { createMessage: {} } } } } : { sampling: {} };
  const store = withTasks ? new InMemoryTaskStore() : undefined;
  const c = await connectV1(url, token, caps, store ? { taskStore: store } : {});
  const asked: Record<string, unknown>[] = [];
  c.client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
    asked.push(req.params as Record<string, unknown>);
    if (req.params.task && extra.taskStore) {
      const store = extra.taskStore;
      const task = await store.createTask({ ttl: req.params.task.ttl ?? 60_000 });
      setTimeout(() => void store.storeTaskResult(task.taskId, 'completed', SAMPLED), 300);
      return { task };
    }
    return SAMPLED;
  });
  // The store's ttl timers would keep the test process alive after the client closes.
  const close = async (): Promise<void> => {
    store?.cleanup();
    await c.client.close();
  };
  return { ...c, asked, close };
};

describe('client-side tasks: an upstream asks a lane to sample as a task, then polls it (handshake era)', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;

  before(async () => {
    gw = await startGateway(policy);
    ta = await gw.token('a');
    tb = await gw.token('b');
  });
  after(async () => gw.stop());

  it("the task is made by the lane's client, polled by the upstream through lanegate, and its result reaches the tool", async () => {
    const a = await taskingClient(gw.url, ta, true);
    const tools = await a.client.listTools();
    assert.ok(
      tools.tools.some((t) => t.name === ASYNC),
      'the upstream offers its async sampling tool to a lane child',
    );
    const r = await a.client.callTool({ name: ASYNC, arguments: { prompt: 'hi', maxTokens: 5 } }, undefined, { timeout: 60_000 });
    const text = textOf(r);
    assert.equal(a.asked.length, 1);
    assert.ok(a.asked[0]?.task, 'the request reached the client as a task');
    assert.match(text, /Task created: /);
    assert.match(text, /Poll \d+: completed/);
    assert.match(text, /sampled as a task/);
    await a.close();
  });

  it('a lane whose client declared no client-side tasks is asked plainly, and the tool gets its answer at once', async () => {
    const b = await taskingClient(gw.url, tb, false);
    const r = await b.client.callTool({ name: ASYNC, arguments: { prompt: 'hi', maxTokens: 5 } }, undefined, { timeout: 60_000 });
    assert.equal(b.asked.length, 1);
    assert.equal(b.asked[0]?.task, undefined, 'no task asked of a client that cannot run one');
    assert.match(textOf(r), /\[SYNC\] Client executed synchronously/);
    assert.match(textOf(r), /sampled as a task/);
    await b.close();
  });

  it('a 2026-07-28 lane (no client-side tasks in that revision) gets the request as plain input', async () => {
    const meta = { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const first = await modernPost(gw.url, ta, 1, 'tools/call', { name: ASYNC, arguments: { prompt: 'hi', maxTokens: 5 }, _meta: meta });
    const res = first.json?.result as Record<string, unknown>;
    assert.equal(res.resultType, 'input_required', JSON.stringify(first.json));
    const [key, req] = Object.entries(res.inputRequests as Record<string, { method: string; params: Record<string, unknown> }>)[0] ?? [];
    assert.ok(key && req);
    assert.equal(req.method, 'sampling/createMessage');
    assert.equal(req.params.task, undefined);
    const second = await modernPost(gw.url, ta, 2, 'tools/call', {
      name: ASYNC,
      arguments: { prompt: 'hi', maxTokens: 5 },
      inputResponses: { [key]: SAMPLED },
      requestState: res.requestState,
      _meta: meta,
    });
    assert.match(textOf(second.json?.result), /\[SYNC\]/);
  });
});
