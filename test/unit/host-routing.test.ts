import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeNotification, routeServerRequest } from '../../src/host/frame-routing.js';
import { ProgressTokens } from '../../src/host/progress-tokens.js';
import type { ChildScope } from '../../src/host/slot.js';
import { upstreamParams } from '../../src/host/upstream-params.js';
import { ResourceSubs } from '../../src/host/resource-subs.js';
import { readCaller } from '../../src/host/caller.js';
import { CALLER_IDENTITY_EXT, CALLER_META } from '../../src/link/config.js';

const dedicated: ChildScope = { lanes: ['a'], sole: 'a', contested: false, era: 'legacy', key: 'a|legacy' };
const sharedOne: ChildScope = { lanes: 'all', sole: 'a', contested: false, era: 'legacy', key: '*|legacy' };
const sharedNone: ChildScope = { lanes: 'all', contested: false, era: 'legacy', key: '*|legacy' };
const contested: ChildScope = { lanes: 'all', contested: true, era: 'legacy', key: '*|legacy' };

describe('routing of frames a child sends (pure)', () => {
  it('a server request is relayed only from a child serving one lane; on a contested child it is a hazard', () => {
    for (const m of ['sampling/createMessage', 'elicitation/create', 'roots/list']) {
      assert.deepEqual(routeServerRequest(dedicated, m), { kind: 'relay', lane: 'a' });
      assert.deepEqual(routeServerRequest(sharedOne, m), { kind: 'relay', lane: 'a' });
      assert.deepEqual(routeServerRequest(sharedNone, m), { kind: 'refuse' });
      assert.deepEqual(routeServerRequest(contested, m), { kind: 'hazard' });
    }
    assert.deepEqual(routeServerRequest(dedicated, 'tools/call'), { kind: 'refuse' }, 'only the client features are relayed');
    assert.deepEqual(routeServerRequest(contested, 'ping'), { kind: 'answer' });
  });

  it('progress goes to its call only; unowned progress on a contested child is a hazard; log lines only from one-lane children', () => {
    assert.deepEqual(routeNotification(contested, 'notifications/progress', true), { kind: 'to_call' });
    assert.deepEqual(routeNotification(contested, 'notifications/progress', false), { kind: 'hazard' });
    assert.deepEqual(routeNotification(dedicated, 'notifications/progress', false), { kind: 'drop' });
    assert.deepEqual(routeNotification(dedicated, 'notifications/message', false), { kind: 'to_lane', lane: 'a' });
    assert.deepEqual(
      routeNotification(sharedOne, 'notifications/message', false),
      { kind: 'drop' },
      'a shared child may gain a lane any time',
    );
    assert.deepEqual(routeNotification(contested, 'notifications/tools/list_changed', false), { kind: 'list_changed' });
    assert.deepEqual(routeNotification(contested, 'notifications/resources/updated', false), { kind: 'resource_updated' });
    assert.deepEqual(routeNotification(contested, 'notifications/subscriptions/acknowledged', false), { kind: 'acknowledged' });
    assert.deepEqual(routeNotification(dedicated, 'notifications/cancelled', false), { kind: 'drop' });
  });
});

describe('progress tokens', () => {
  it('two lanes choosing the same token get distinct upstream tokens, each mapped back to its own lane', () => {
    const p = new ProgressTokens();
    const a = p.track('a', 7);
    const b = p.track('b', 7);
    assert.ok(a && b && a !== b);
    assert.deepEqual(p.owner(a), { lane: 'a', token: 7 });
    assert.deepEqual(p.owner(b), { lane: 'b', token: 7 });
    assert.equal(p.track('a', undefined), undefined, 'no token asked, none tracked');
    assert.equal(p.owner(7), undefined, "a lane's own token is never an upstream token");
    p.release(a);
    assert.equal(p.owner(a), undefined);
  });
});

describe('params sent upstream', () => {
  const legacy = { init: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: {} }, modern: false };
  const modern = { ...legacy, modern: true };
  const sent = {
    name: 'echo',
    inputResponses: { k: {} },
    requestState: 's',
    _meta: { [CALLER_META]: { lane: 'a', capabilities: { sampling: {} } }, progressToken: 'lgp-1' },
  };

  it('a handshake-era link gets no caller block and no MRTR fields', () => {
    assert.deepEqual(upstreamParams(legacy, 'a', sent), { name: 'echo', _meta: { progressToken: 'lgp-1' } });
  });

  it("a 2026-07-28 link gets the lane's own capabilities and the MRTR fields", () => {
    const out = upstreamParams(modern, 'a', sent);
    assert.equal(out.requestState, 's');
    assert.deepEqual((out._meta as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities'], { sampling: {} });
    assert.equal((out._meta as Record<string, unknown>)[CALLER_META], undefined);
  });

  it('a child that advertises the caller-identity extension learns the lane, nothing more', () => {
    const aware = { ...legacy, init: { ...legacy.init, capabilities: { experimental: { [CALLER_IDENTITY_EXT]: {} } } } };
    assert.deepEqual((upstreamParams(aware, 'a', sent)._meta as Record<string, unknown>)[CALLER_META], { lane: 'a' });
  });
});

describe('resource subscriptions per child', () => {
  it('the upstream hears only the first subscribe and the last unsubscribe; updates go to holders of that child only', () => {
    const r = new ResourceSubs();
    const a1 = { lane: 'a', holder: 's1' };
    const a2 = { lane: 'a', holder: 's2' };
    const b1 = { lane: 'b', holder: 's3' };
    assert.equal(r.add('*|legacy', 'x://1', a1), true, 'first: subscribe upstream');
    assert.equal(r.add('*|legacy', 'x://1', b1), false);
    assert.equal(r.add('*|legacy', 'x://1', a1), false, 'the same holder twice is one holder');
    assert.equal(r.add('b|legacy', 'x://1', a2), true, "another child's first");
    assert.deepEqual(r.holders('*|legacy', 'x://1'), [a1, b1]);
    assert.deepEqual(r.holders('*|legacy', 'x://2'), []);
    assert.equal(r.remove('*|legacy', 'x://1', a2), false, 'not a holder there: nothing to do');
    assert.equal(r.remove('*|legacy', 'x://1', a1), false, 'b still holds it');
    assert.equal(r.held('*|legacy'), true);
    assert.equal(r.remove('*|legacy', 'x://1', b1), true, 'last: unsubscribe upstream');
    assert.equal(r.held('*|legacy'), false);
    assert.deepEqual(r.uris('b|legacy'), ['x://1']);
  });
});

describe('the caller block a host reads', () => {
  const lanes = { a: ['x'], b: ['x'] };
  const meta = (c: Record<string, unknown>) => ({ _meta: { [CALLER_META]: c } });
  it('names the lane, its era and holder; legacy when the era is unsaid', () => {
    assert.deepEqual(readCaller(meta({ lane: 'a', era: 'modern', holder: 's1' }), lanes, undefined), {
      lane: 'a',
      era: 'modern',
      holder: 's1',
    });
    assert.deepEqual(readCaller(meta({ lane: 'b' }), lanes, undefined), { lane: 'b', era: 'legacy', holder: '' });
  });
  it('refuses a lane this host does not serve, another lane on a per-lane host, and no caller at all', () => {
    assert.throws(() => readCaller(meta({ lane: 'c' }), lanes, undefined), /not served by this host/);
    assert.throws(() => readCaller(meta({ lane: 'b' }), lanes, 'a'), /not served by this host/);
    assert.throws(() => readCaller({}, lanes, undefined), /not served by this host/);
    assert.throws(() => readCaller(meta({ lane: 'constructor' }), lanes, undefined), /not served by this host/, 'no prototype keys');
  });
});
