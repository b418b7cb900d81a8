import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientRequests } from '../../src/front/mcp/client-requests.js';
import { ClientTaskPins, relayToClient } from '../../src/front/mcp/client-tasks.js';
import { Sessions } from '../../src/front/mcp/sessions.js';
import { CallStreams } from '../../src/front/transport/call-streams.js';

const CLAIMS = { lane: 'a', jti: 'j', iat: 1, exp: 2 };
/** A client that samples, and runs sampling as a task (it declares both, as the spec has it). */
const TASKS = { sampling: {}, tasks: { requests: { sampling: { createMessage: {} } } } };

const setup = () => {
  const sessions = new Sessions();
  const sent: { session: string; msg: Record<string, unknown> }[] = [];
  const open = (lane: string, caps?: Record<string, unknown>) => {
    const s = sessions.create(lane, '2025-11-25', { ...CLAIMS, lane }, caps);
    s.streams.add({ send: (msg) => sent.push({ session: s.id, msg }), close: () => undefined });
    return s;
  };
  const d = { clientRequests: new ClientRequests(), streams: new CallStreams(), sessions, pins: new ClientTaskPins() };
  return { d, open, sent, sessions };
};

describe('client-side tasks: pinned to the session that made them', () => {
  it('a pin is per origin (host and server), lane and id, and expires', () => {
    let t = 0;
    const pins = new ClientTaskPins(() => t);
    pins.pin('h\u0000x', 'a', 'T1', 's1', 1000);
    assert.equal(pins.holderOf('h\u0000x', 'a', 'T1'), 's1');
    assert.equal(pins.holderOf('h\u0000y', 'a', 'T1'), undefined, "another server's child cannot poll it");
    assert.equal(pins.holderOf('h\u0000x', 'b', 'T1'), undefined);
    assert.equal(pins.holderOf('h\u0000x', 'a', 7), undefined);
    t = 1000;
    assert.equal(pins.holderOf('h\u0000x', 'a', 'T1'), undefined);
  });

  it('a poll of an id never pinned is refused as not found and reaches no client', async () => {
    const { d, open, sent } = setup();
    open('a', TASKS);
    await assert.rejects(relayToClient(d, 'h\u0000x', 'a', 'tasks/get', { taskId: 'guess' }), /Task not found/);
    await assert.rejects(relayToClient(d, 'h\u0000x', 'a', 'tasks/list', {}), /does not list/);
    assert.deepEqual(sent, []);
  });

  it('a session that did not declare sampling is never asked to sample, as a task or plain', async () => {
    const { d, open, sent } = setup();
    open('a', { tasks: { requests: { sampling: { createMessage: {} } } } });
    open('a', {});
    await assert.rejects(
      relayToClient(d, 'h\u0000x', 'a', 'sampling/createMessage', { messages: [], maxTokens: 1, task: { ttl: 5000 } }),
      /none declared the capability/,
    );
    assert.deepEqual(sent, []);
  });

  it('the session that answered with a task gets its polls; the other sessions of the lane never do', async () => {
    const { d, open, sent } = setup();
    const s1 = open('a', TASKS);
    const s2 = open('a', TASKS);
    const asked = relayToClient(d, 'h\u0000x', 'a', 'sampling/createMessage', { messages: [], maxTokens: 1, task: { ttl: 5000 } });
    // Both GET streams carried it (no call in flight); s2 answers.
    const id = sent.at(-1)?.msg.id;
    assert.ok(id);
    assert.ok(d.clientRequests.answer('a', s2.id, { id, result: { task: { taskId: 'T9', status: 'working', ttl: 5000 } } }));
    assert.deepEqual(((await asked).task as Record<string, unknown>).taskId, 'T9');
    sent.length = 0;
    const poll = relayToClient(d, 'h\u0000x', 'a', 'tasks/get', { taskId: 'T9' });
    assert.deepEqual(
      sent.map((x) => x.session),
      [s2.id],
    );
    // An answer from the other session is not taken.
    const pollId = sent[0]?.msg.id;
    assert.equal(d.clientRequests.answer('a', s1.id, { id: pollId, result: { status: 'completed' } }), false);
    assert.ok(d.clientRequests.answer('a', s2.id, { id: pollId, result: { taskId: 'T9', status: 'completed' } }));
    assert.equal((await poll).status, 'completed');
  });

  it('a task is asked of the lane only if every session of it can run one; otherwise the request goes plain', async () => {
    const { d, open, sent } = setup();
    open('a', TASKS);
    const plain = open('a', { sampling: {} });
    const asked = relayToClient(d, 'h\u0000x', 'a', 'sampling/createMessage', { messages: [], maxTokens: 1, task: { ttl: 5000 } });
    assert.equal(sent.length, 2);
    for (const x of sent) assert.equal((x.msg.params as Record<string, unknown>).task, undefined);
    d.clientRequests.answer('a', plain.id, {
      id: sent[0]?.msg.id,
      result: { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' },
    });
    assert.equal((await asked).model, 'm');
  });
});
