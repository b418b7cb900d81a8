import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planRequest } from '../../src/front/mcp/plan.js';
import { validatePolicyText } from '../../src/policy/load.js';
import { policyHead } from '../helpers/gateway.js';

const { policy } = validatePolicyText(
  `${policyHead()}
trustDomains: { public: { kind: shared }, mine: { kind: principal } }
servers:
  fix: { prefix: fix, domain: public, callTimeout: 30s, stdio: { command: node, args: ["x.js"] } }
  mem: { prefix: mem, domain: public, stdio: { command: node, args: ["y.js"] } }
  own: { prefix: own, domain: mine, stdio: { command: node, args: ["z.js"] } }
lanes:
  full: { servers: [fix, own] }
  lean: { servers: [fix], catalog: search }
`,
  '/tmp/plan-policy.yaml',
);

describe('the request planner (pure)', () => {
  assert.ok(policy, 'the test policy loads');
  const p = policy as NonNullable<typeof policy>;

  it('answers what the gateway answers itself, and lists', () => {
    assert.deepEqual(planRequest(p, 'full', 'ping', {}), { kind: 'answer' });
    assert.deepEqual(planRequest(p, 'full', 'tools/list', {}), { kind: 'list', method: 'tools/list', withStatus: true });
    assert.deepEqual(planRequest(p, 'full', 'prompts/list', {}), { kind: 'list', method: 'prompts/list', withStatus: false });
    assert.deepEqual(planRequest(p, 'lean', 'tools/list', {}), { kind: 'search-tools' });
    assert.deepEqual(planRequest(p, 'full', 'tools/call', { name: 'lanegate_status' }), { kind: 'status' });
  });

  it("routes a task method by its id's prefix; an id outside the loadout reads as unknown, never as refused", () => {
    assert.deepEqual(planRequest(p, 'full', 'tasks/get', { taskId: 'own_task-ab' }), {
      kind: 'forward',
      hostKey: 'mine@full',
      server: 'own',
      target: 'own_task-ab',
      timeoutMs: 62_000,
    });
    assert.equal(planRequest(p, 'full', 'tasks/result', { taskId: 'fix_task-ab' }).kind, 'forward');
    assert.equal(planRequest(p, 'full', 'tasks/cancel', { taskId: 'fix_task-ab' }).kind, 'forward');
    // mem exists but is not full's; zzz does not exist; an id with no prefix: all the same answer.
    for (const taskId of ['mem_task-ab', 'zzz_task-ab', 'task-ab', '', 7])
      assert.deepEqual(planRequest(p, 'full', 'tasks/get', { taskId }), { kind: 'task-unknown' });
    assert.deepEqual(planRequest(p, 'lean', 'tasks/cancel', { taskId: 'own_task-ab' }), { kind: 'task-unknown' });
    assert.deepEqual(planRequest(p, 'full', 'tasks/list', {}), { kind: 'tasks-list' });
  });

  it('routes by the anatomy table to the host of the server, with its timeout', () => {
    assert.deepEqual(planRequest(p, 'full', 'tools/call', { name: 'fix_echo', arguments: {} }), {
      kind: 'forward',
      hostKey: 'public',
      server: 'fix',
      target: 'fix_echo',
      timeoutMs: 32_000,
    });
    const own = planRequest(p, 'full', 'resources/read', { uri: 'own+file:///a' });
    assert.equal(own.kind === 'forward' && own.hostKey, 'mine@full');
  });

  it('refuses names outside the loadout, and methods nobody serves', () => {
    assert.deepEqual(planRequest(p, 'full', 'tools/call', { name: 'mem_read' }), { kind: 'refuse', target: 'mem_read' });
    assert.deepEqual(planRequest(p, 'lean', 'tools/call', { name: 'own_echo' }), { kind: 'refuse', target: 'own_echo' });
    assert.deepEqual(planRequest(p, 'full', 'tools/call', { name: 'echo' }), { kind: 'refuse', target: 'echo' });
    assert.deepEqual(planRequest(p, 'full', 'sampling/createMessage', {}), { kind: 'not-found' });
  });

  it("search lanes: lanegate_search and lanegate_call, which cannot call the gateway's own tools", () => {
    assert.deepEqual(planRequest(p, 'lean', 'tools/call', { name: 'lanegate_search', arguments: { query: 'echo', limit: 99 } }), {
      kind: 'search',
      query: 'echo',
      limit: 25,
    });
    assert.deepEqual(
      planRequest(p, 'lean', 'tools/call', { name: 'lanegate_call', arguments: { name: 'fix_echo', arguments: { text: 'x' } } }),
      {
        kind: 'call-through',
        name: 'fix_echo',
        arguments: { text: 'x' },
      },
    );
    const self = planRequest(p, 'lean', 'tools/call', { name: 'lanegate_call', arguments: { name: 'lanegate_search' } });
    assert.equal(self.kind, 'tool-error');
    assert.equal(planRequest(p, 'full', 'tools/call', { name: 'lanegate_search' }).kind, 'refuse', 'only search lanes have it');
  });
});
