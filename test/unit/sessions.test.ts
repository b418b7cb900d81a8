import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDLE_MS, type Session, Sessions } from '../../src/front/mcp/sessions.js';
import { reachLane, reachSession } from '../../src/front/mcp/client-requests.js';
import { CallStreams } from '../../src/front/transport/call-streams.js';

const CLAIMS_A = { lane: 'a', jti: 'jti-a', iat: 1, exp: 2 };
const CLAIMS_B = { lane: 'b', jti: 'jti-b', iat: 1, exp: 2 };

describe('handshake-era sessions', () => {
  it("counts a session's resource subscriptions and its lane's together, never another lane's (the caps' inputs, attack round 12)", () => {
    const s = new Sessions();
    const a1 = s.create('a', '2025-06-18', CLAIMS_A);
    const a2 = s.create('a', '2025-06-18', CLAIMS_A);
    const b1 = s.create('b', '2025-06-18', CLAIMS_B);
    for (let i = 0; i < 3; i += 1) s.trackResource('a', a1.id, `x://${i}`, true);
    s.trackResource('a', a2.id, 'x://9', true);
    s.trackResource('b', b1.id, 'x://0', true);
    s.trackResource('b', a1.id, 'x://other-lane', true); // a holder of another lane: ignored
    assert.deepEqual(s.resourcesOf('a', a1.id, 'x://1'), { held: 3, has: true, lane: 4 });
    assert.deepEqual(s.resourcesOf('a', a2.id, 'x://1'), { held: 1, has: false, lane: 4 });
    assert.deepEqual(s.resourcesOf('b', b1.id, 'x://0'), { held: 1, has: true, lane: 1 });
    assert.deepEqual(s.resourcesOf('b', a1.id, 'x://0'), { held: 0, has: false, lane: 0 }, "another lane's session counts nothing");
    s.trackResource('a', a1.id, 'x://1', false);
    s.end(a2.id);
    assert.deepEqual(s.resourcesOf('a', a1.id, 'x://1'), { held: 2, has: false, lane: 2 });
    // Listen streams' subscriptions count toward their lane's total, until let go.
    s.holdListen('a', 100);
    s.holdListen('a', 50);
    assert.equal(s.laneResources('a'), 152);
    assert.equal(s.resourcesOf('a', a1.id, 'x://0').lane, 152);
    assert.equal(s.laneResources('b'), 1);
    s.holdListen('a', -150);
    assert.equal(s.laneResources('a'), 2);
  });

  it("a session is its lane's only: another lane's token sees no such session", () => {
    const s = new Sessions();
    const a = s.create('a', '2025-06-18', CLAIMS_A);
    assert.equal(s.get(a.id, 'a')?.id, a.id);
    assert.equal(s.get(a.id, 'b'), undefined);
  });

  it('an abandoned session ends after its idle limit and lets go of what it holds; one with a GET stream open stays', () => {
    const s = new Sessions();
    const ended: Session[] = [];
    s.onEnd = (x) => ended.push(x);
    const gone = s.create('a', '2025-06-18', CLAIMS_A);
    gone.resources.add('watch+fixture://info');
    const live = s.create('a', '2025-06-18', CLAIMS_A);
    live.streams.add({ send: () => undefined, close: () => undefined });
    const fresh = s.create('b', '2025-06-18', CLAIMS_B);
    assert.equal(s.sweep(Date.now() + IDLE_MS / 2), 0, 'nothing is idle yet');
    fresh.lastSeen = Date.now() + IDLE_MS;
    assert.equal(s.sweep(Date.now() + IDLE_MS + 1), 1);
    assert.deepEqual(
      ended.map((x) => [x.id, [...x.resources]]),
      [[gone.id, ['watch+fixture://info']]],
    );
    assert.equal(s.get(gone.id, 'a'), undefined);
    assert.ok(s.get(live.id, 'a'));
  });

  it('a resource update reaches only the sessions of the lane that hold that URI', () => {
    const s = new Sessions();
    const got: string[] = [];
    const sink = (name: string) => ({ send: () => got.push(name), close: () => undefined });
    const a1 = s.create('a', '2025-06-18', CLAIMS_A);
    const a2 = s.create('a', '2025-06-18', CLAIMS_A);
    const b1 = s.create('b', '2025-06-18', CLAIMS_B);
    a1.streams.add(sink('a1'));
    a2.streams.add(sink('a2'));
    b1.streams.add(sink('b1'));
    s.trackResource('a', a1.id, 'x+u://1', true);
    s.trackResource('b', a2.id, 'x+u://1', true); // another lane cannot mark a session that is not its own
    const msg = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'x+u://1' } };
    s.deliverToHolders('a', [a1.id, a2.id, b1.id], msg);
    s.deliverToHolders('b', [a1.id], msg);
    assert.deepEqual(got, ['a1']);
  });

  it("a task's status reaches exactly the session that owns the task, never another lane's", () => {
    const s = new Sessions();
    const got: string[] = [];
    const sink = (name: string) => ({ send: () => got.push(name), close: () => undefined });
    const a1 = s.create('a', '2025-11-25', CLAIMS_A);
    const a2 = s.create('a', '2025-11-25', CLAIMS_A);
    const b1 = s.create('b', '2025-11-25', CLAIMS_B);
    a1.streams.add(sink('a1'));
    a2.streams.add(sink('a2'));
    b1.streams.add(sink('b1'));
    const msg = { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 'every_task-1', status: 'working' } };
    s.deliverToHolders('a', [a2.id], msg);
    s.deliverToHolders('a', [b1.id], msg); // a holder of another lane is never reached
    assert.deepEqual(got, ['a2']);
  });
});

describe("an upstream's request reaches only sessions that declared what it needs", () => {
  const setUp = () => {
    const sessions = new Sessions();
    const streams = new CallStreams();
    const got = new Map<string, Record<string, unknown>[]>();
    const open = (caps: Record<string, unknown> | undefined) => {
      const s = sessions.create('a', '2025-06-18', CLAIMS_A, caps);
      const seen: Record<string, unknown>[] = [];
      got.set(s.id, seen);
      s.streams.add({ send: (m) => seen.push(m), close: () => undefined });
      return s;
    };
    return { sessions, streams, got, open };
  };
  const ask = (method: string) => ({ jsonrpc: '2.0', id: 'lg-1', method, params: {} });

  it('a session that declared nothing is sent no roots/list, sampling or elicitation, on its call or its GET stream', () => {
    const { sessions, streams, got, open } = setUp();
    const bare = open({});
    const call = streams.start('a', undefined, true, true, bare.id);
    for (const m of ['roots/list', 'sampling/createMessage', 'elicitation/create'])
      assert.equal(reachLane(streams, sessions, 'a', ask(m), false), undefined, `${m}: the upstream is told no`);
    assert.deepEqual(call.queue, [], 'nothing on the call stream');
    assert.deepEqual(got.get(bare.id), [], 'nothing on the GET stream');
    // Requests that need no capability still reach it.
    assert.deepEqual(reachLane(streams, sessions, 'a', ask('ping'), false), [bare.id]);
  });

  it('a session that declared the capability is sent the request; one that did not, beside it, is not', () => {
    const { sessions, streams, got, open } = setUp();
    const bare = open({});
    const roots = open({ roots: {} });
    const sampler = open({ sampling: {} });
    const call = streams.start('a', undefined, true, true, sampler.id);
    // The call in flight is the sampler's: sampling goes on its stream, and only its session may answer.
    assert.deepEqual(reachLane(streams, sessions, 'a', ask('sampling/createMessage'), false), [sampler.id]);
    assert.equal(call.queue.length, 1);
    // A request while that call is in flight may be the call's: it goes to no other session (the
    // sampler did not declare roots, so the upstream hears no).
    assert.equal(reachLane(streams, sessions, 'a', ask('roots/list'), false), undefined);
    assert.deepEqual(got.get(roots.id), []);
    // With no call in flight, a request of the server's own reaches the GET streams of the sessions that declared it.
    streams.end(call);
    assert.deepEqual(reachLane(streams, sessions, 'a', ask('roots/list'), false), [roots.id]);
    assert.deepEqual(got.get(bare.id), []);
    assert.deepEqual(
      got.get(roots.id)?.map((m) => m.method),
      ['roots/list'],
    );
  });

  it("one session's request never reaches another session: calls of two sessions to one server in flight, it is refused (attack round 11)", () => {
    const { sessions, streams, got, open } = setUp();
    const x = open({ sampling: {} });
    const y = open({ sampling: {} });
    const cx = streams.start('a', undefined, true, true, x.id);
    const cy = streams.start('a', undefined, true, true, y.id);
    cx.server = 'every';
    cy.server = 'every';
    assert.equal(reachLane(streams, sessions, 'a', ask('sampling/createMessage'), false, 'every'), undefined, 'cannot be told to one');
    assert.deepEqual([cx.queue, cy.queue, got.get(x.id), got.get(y.id)], [[], [], [], []]);
    // Their calls went to different servers: each server's request is its own session's.
    cy.server = 'fix';
    assert.deepEqual(reachLane(streams, sessions, 'a', ask('sampling/createMessage'), false, 'every'), [x.id]);
    assert.deepEqual(reachLane(streams, sessions, 'a', ask('sampling/createMessage'), false, 'fix'), [y.id]);
    assert.deepEqual([cx.queue.length, cy.queue.length], [1, 1]);
  });

  it('a call of a session that declared nothing is not served by another session that did (its data stays its own)', () => {
    const { sessions, streams, got, open } = setUp();
    const bare = open({});
    const other = open({ sampling: {}, elicitation: {} });
    streams.start('a', undefined, true, true, bare.id).server = 'every';
    for (const m of ['sampling/createMessage', 'elicitation/create'])
      assert.equal(reachLane(streams, sessions, 'a', ask(m), false, 'every'), undefined, m);
    assert.deepEqual(got.get(other.id), [], "nothing on the other session's GET stream");
  });

  it('a 2026-07-28 call that declared nothing: the request goes to no handshake-era session either (attack round 11)', () => {
    const { sessions, streams, got, open } = setUp();
    const legacy = open({ sampling: {} });
    const modern = streams.start('a', undefined, false, false);
    modern.caps = {};
    assert.equal(reachLane(streams, sessions, 'a', ask('sampling/createMessage'), true, 'every'), undefined);
    assert.equal(modern.missingCapability, 'sampling', 'the modern call is told what it lacks');
    assert.deepEqual(got.get(legacy.id), []);
  });

  it("the input a call's upstream asks for goes to that call's session only", () => {
    const { sessions, streams, got, open } = setUp();
    const mine = open({ elicitation: {} });
    const other = open({ elicitation: {} });
    const call = streams.start('a', undefined, true, true, mine.id);
    streams.start('a', undefined, true, true, other.id);
    assert.deepEqual(reachSession(streams, sessions, 'a', mine.id, ask('elicitation/create')), [mine.id]);
    assert.equal(call.queue.length, 1);
    assert.deepEqual(got.get(other.id), []);
    const plain = open({});
    assert.equal(reachSession(streams, sessions, 'a', plain.id, ask('elicitation/create')), undefined, 'it did not declare it');
  });
});
