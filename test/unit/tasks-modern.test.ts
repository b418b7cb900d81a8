import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  declaresTasks,
  detailedTask,
  MISSING_CLIENT_CAPABILITY,
  missingTasksCapability,
  modernTask,
  TASKS_EXTENSION,
  taskSupportOf,
  inlinedResult,
  wrongEra,
} from '../../src/host/tasks-modern.js';

const upstream = {
  taskId: 'up-1',
  status: 'working',
  createdAt: 'c',
  lastUpdatedAt: 'u',
  ttl: 5000,
  pollInterval: 1000,
  statusMessage: 'm',
};

describe('2025-11-25 tasks as the 2026-07-28 tasks extension (pure)', () => {
  it("reads the extension from the lane's capabilities in the caller block only", () => {
    assert.ok(declaresTasks({ _meta: { 'lanegate/caller': { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } } } }));
    assert.equal(declaresTasks({ _meta: { 'lanegate/caller': { capabilities: { extensions: {} } } } }), false);
    assert.equal(declaresTasks({ _meta: { extensions: { [TASKS_EXTENSION]: {} } } }), false);
    assert.equal(declaresTasks({}), false);
  });

  it("reads a tool's task support from the vetted listing", () => {
    const surface = {
      tools: [{ name: 'r', execution: { taskSupport: 'required' } }, { name: 'o', execution: { taskSupport: 'optional' } }, { name: 'p' }],
    };
    assert.equal(taskSupportOf(surface as never, 'r'), 'required');
    assert.equal(taskSupportOf(surface as never, 'o'), 'optional');
    assert.equal(taskSupportOf(surface as never, 'p'), undefined);
    assert.equal(taskSupportOf(surface as never, 'zz'), undefined);
    assert.equal(taskSupportOf(undefined, 'r'), undefined);
  });

  it("drops 2025-11-25's related-task key from a result inlined in tasks/get, and nothing else", () => {
    const rel = 'io.modelcontextprotocol/related-task';
    assert.deepEqual(inlinedResult({ content: [], _meta: { [rel]: { taskId: 'u' } } }), { content: [] });
    assert.deepEqual(inlinedResult({ content: [], _meta: { [rel]: { taskId: 'u' }, k: 1 } }), { content: [], _meta: { k: 1 } });
    const plain = { content: [], _meta: { k: 1 } };
    assert.equal(inlinedResult(plain), plain);
  });

  it('renames ttl and pollInterval, keeps the lane id, and says unlimited as null', () => {
    assert.deepEqual(modernTask('every_task-1', upstream, 'working'), {
      taskId: 'every_task-1',
      status: 'working',
      statusMessage: 'm',
      createdAt: 'c',
      lastUpdatedAt: 'u',
      ttlMs: 5000,
      pollIntervalMs: 1000,
    });
    assert.equal(modernTask('x', { ...upstream, ttl: null }, 'working').ttlMs, null);
  });

  it('carries the result or the error once the task ended, input requests while it waits, and isError as completed', () => {
    const result = { content: [], isError: true };
    assert.deepEqual(detailedTask('x', { ...upstream, status: 'failed' }, { result }, {}).status, 'completed');
    assert.deepEqual(detailedTask('x', { ...upstream, status: 'failed' }, { result }, {}).result, result);
    const failed = detailedTask('x', { ...upstream, status: 'failed' }, { error: { code: -32603, message: 'boom' } }, {});
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.error, { code: -32603, message: 'boom' });
    const inputs = { 'input-1': { method: 'elicitation/create', params: {} } };
    const waiting = detailedTask('x', { ...upstream, status: 'input_required' }, undefined, inputs);
    assert.equal(waiting.status, 'input_required');
    assert.deepEqual(waiting.inputRequests, inputs);
    // input_required upstream but nothing asked yet: working (input_required must carry its requests).
    assert.equal(detailedTask('x', { ...upstream, status: 'input_required' }, undefined, {}).status, 'working');
    assert.equal(detailedTask('x', { ...upstream, status: 'cancelled' }, { result }, {}).status, 'cancelled');
    assert.equal(detailedTask('x', { ...upstream, status: 'completed' }, undefined, {}).status, 'working');
  });

  it('errors say what to do instead', () => {
    const m = missingTasksCapability('every_r');
    assert.equal(m.rpc.code, MISSING_CLIENT_CAPABILITY);
    assert.deepEqual(m.rpc.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    assert.match(wrongEra('tasks/list', true).rpc.message, /poll tasks\/get/);
    assert.match(wrongEra('tasks/update', false).rpc.message, /use tasks\/result/);
  });
});
