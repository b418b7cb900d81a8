import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVERYTHING, FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernMeta, modernPost, textOf } from '../helpers/mcp.js';

/**
 * A 2026-07-28 lane's task over a 2025-11-25 upstream: what the lane answers the upstream's
 * requests with (tasks/update) goes up, and the task's final result comes back in tasks/get. Both
 * cross the secret gate as a call's arguments and answer do (found in review, 2026-12-03: the
 * host kept the final result and passed the lane's input answers without a scan).
 */
const RESEARCH = 'every_simulate-research-query';
const TASKS = { 'io.modelcontextprotocol/tasks': {} };
const withTasks = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: TASKS } };
// A credential shape, assembled at run time so no scanner of this repository mistakes it for a real one.
const GITHUB = ['ghp', 'Q7mZ2vK9pL4xT8wR1nB6cY3hJ5dF0gS2aE7u'].join('_');
type Json = Record<string, unknown>;

const TASK_FIXTURE = FIXTURE.replace(/fixture\.mjs$/, 'task-fixture.mjs');

const server = (name: string, prefix: string, secrets: string): string => `  ${name}:
    prefix: ${prefix}
    domain: public
    stdio: { command: node, args: ["${EVERYTHING}", "stdio"] }
    secrets: ${secrets}
`;

describe('a task of a 2026-07-28 lane crosses the secret gate both ways', () => {
  let gw: RunningGateway;
  let token: string;
  let seq = 0;
  const call = async (method: string, params: Json = {}): Promise<Json> => {
    seq += 1;
    const taskId: Record<string, string> = typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {};
    const declared = method.startsWith('tasks/') && params._meta === undefined ? { ...params, _meta: withTasks } : params;
    return (await modernPost(gw.url, token, seq, method, declared, taskId)).json ?? {};
  };
  const poll = async (id: string, until: (t: Json) => boolean): Promise<Json> => {
    for (let i = 0; i < 200; i += 1) {
      const r = await call('tasks/get', { taskId: id });
      const t = r.result as Json | undefined;
      assert.ok(t, JSON.stringify(r).slice(0, 500));
      if (until(t)) return t;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`task ${id} never got there`);
  };
  /** A research task waiting on its question, and the question's key. */
  const waiting = async (prefix: string): Promise<{ id: string; key: string }> => {
    const r = await call('tools/call', {
      name: RESEARCH.replace('every', prefix),
      arguments: { topic: 'python', ambiguous: true },
      _meta: withTasks,
    });
    const id = String((r.result as Json).taskId);
    const t = await poll(id, (x) => x.status === 'input_required');
    const key = Object.keys(t.inputRequests as Json)[0];
    assert.ok(key);
    return { id, key };
  };

  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
${server('strict', 'strict', '{ arguments: block, answers: block }')}${server('loose', 'loose', '{ arguments: log, answers: block }')}  tk:
    prefix: tk
    domain: public
    stdio: { command: node, args: ["${TASK_FIXTURE}"] }
    secrets: { arguments: log, answers: block }
lanes:
  a: { servers: [strict, loose, tk] }
`);
    token = await gw.token('a');
  });
  after(async () => gw.stop());

  it('a secret in a tasks/update answer is refused before it reaches the upstream; the question stays open', async () => {
    const { id, key } = await waiting('strict');
    const r = await call('tasks/update', {
      taskId: id,
      inputResponses: { [key]: { action: 'accept', content: { interpretation: GITHUB } } },
    });
    const err = r.error as { code?: number; message?: string } | undefined;
    assert.ok(err, `refused: ${JSON.stringify(r).slice(0, 300)}`);
    assert.match(String(err.message), /secret \(github_token/);
    assert.ok(!JSON.stringify(r).includes(GITHUB));
    const still = await poll(id, (x) => x.status !== 'working');
    assert.equal(still.status, 'input_required', 'the question is still asked');
    // Answered clean, it completes.
    await call('tasks/update', { taskId: id, inputResponses: { [key]: { action: 'accept', content: { interpretation: 'snake' } } } });
    const done = await poll(id, (x) => x.status === 'completed' || x.status === 'failed');
    assert.match(textOf(done.result), /Research Report: python \(snake\)/);
  });

  it("a secret in the task's state or final result is withheld from tasks/get as from a call's answer", async () => {
    // Arguments only logged on this server: the token goes up, and comes back in the task's status and report.
    const { id, key } = await waiting('loose');
    await call('tasks/update', { taskId: id, inputResponses: { [key]: { action: 'accept', content: { interpretation: GITHUB } } } });
    const seen: string[] = [];
    let refused = 0;
    for (let i = 0; i < 100 && refused < 5; i += 1) {
      const r = await call('tasks/get', { taskId: id });
      seen.push(JSON.stringify(r));
      const err = r.error as { code?: number } | undefined;
      const t = r.result as Json | undefined;
      if (err?.code === -32030 || (t && (t.status === 'completed' || t.status === 'failed'))) refused += 1;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(!seen.some((s) => s.includes(GITHUB)), `the token reached the lane: ${seen.find((s) => s.includes(GITHUB))?.slice(0, 300)}`);
    const last = JSON.parse(seen[seen.length - 1] as string) as { error?: { message?: string }; result?: Json };
    // Once it has ended, the lane learns it was withheld: its state (statusMessage) or its report names the rule, never the value.
    const said = last.error?.message ?? String((last.result?.error as Json | undefined)?.message);
    assert.match(said, /withheld the answer of upstream "loose": it holds a secret \(github_token at /);
    assert.ok(refused >= 5, 'the task ended');
  });

  it("a token only in the task's final result (not its status) is withheld: the task fails naming the rule, never the value", async () => {
    const r = await call('tools/call', { name: 'tk_confirm_delete', arguments: {}, _meta: withTasks });
    const id = String((r.result as Json).taskId);
    const t = await poll(id, (x) => x.status === 'input_required');
    const key = Object.keys(t.inputRequests as Json)[0] as string;
    // Arguments only logged on this server: the answer goes up, and the tool's result repeats it.
    await call('tasks/update', { taskId: id, inputResponses: { [key]: { action: 'accept', content: { note: GITHUB } } } });
    const done = await poll(id, (x) => x.status === 'completed' || x.status === 'failed');
    const json = JSON.stringify(done);
    assert.ok(!json.includes(GITHUB), `the token reached the lane: ${json.slice(0, 300)}`);
    assert.equal(done.status, 'failed');
    assert.match(
      String((done.error as Json).message),
      /withheld the answer of upstream "tk": it holds a secret \(github_token at result\.content\[0\]\.text\)/,
    );
  });
});

describe("an upstream's request to a lane crosses the secret gate as its answers do", () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] }, secrets: { arguments: log, answers: block } }
lanes:
  a: { servers: [fix] }
`);
  });
  after(async () => gw.stop());

  it('a sampling request whose prompt holds a token never reaches the lane; the child is told why', async () => {
    const token = await gw.token('a');
    const caps = { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    // Arguments are only logged on this server: the child gets the token and puts it in what it asks the lane.
    const r = await modernPost(gw.url, token, 1, 'tools/call', { name: 'fix_ask', arguments: { text: `use ${GITHUB}` }, _meta: caps });
    const raw = JSON.stringify(r.json);
    assert.ok(!raw.includes(GITHUB), `the token reached the lane: ${raw.slice(0, 400)}`);
    const result = r.json?.result as Json | undefined;
    assert.notEqual(result?.resultType, 'input_required', 'the request was not put to the lane');
    assert.match(
      textOf(result),
      /withheld the answer of upstream \\"fix\\": it holds a secret \(github_token at request\.messages\[0\]\.content\.text\)/,
    );
  });
});
