import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { taskEraGate } from '../../src/front/mcp/tasks.js';

const EXT = { _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } };

describe("the front's task gates per era (pure)", () => {
  it('a handshake-era lane has no tasks/update; its own task methods go on', () => {
    assert.equal(taskEraGate('legacy', 'tasks/update', { taskId: 'x' })?.error?.code, -32601);
    for (const m of ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list', 'tools/call'])
      assert.equal(taskEraGate('legacy', m, { taskId: 'x' }), undefined, m);
  });

  it('a 2026-07-28 lane: tasks/result and tasks/list are not in the extension; its methods need it declared', () => {
    for (const m of ['tasks/result', 'tasks/list']) assert.equal(taskEraGate('modern', m, EXT)?.error?.code, -32601, m);
    for (const m of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const refused = taskEraGate('modern', m, { taskId: 'x' });
      assert.equal(refused?.error?.code, -32021, m);
      assert.deepEqual(refused?.error?.data, { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
      assert.equal(taskEraGate('modern', m, { taskId: 'x', ...EXT }), undefined, m);
    }
    assert.equal(taskEraGate('modern', 'tools/call', {}), undefined);
  });
});
