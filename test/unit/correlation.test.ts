import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CancellableCall, RequestId } from '../../src/front/mcp/call-context.js';
import { Correlation } from '../../src/front/mcp/correlation.js';
import { ProgressTokens } from '../../src/host/progress-tokens.js';

/** A call's context as the transport builds it (call-context-of.ts), for one lane, holder and id. */
const call = (lane: string, holder: string | undefined, id: RequestId): CancellableCall => {
  const abort = new AbortController();
  return {
    lane,
    era: holder === undefined ? 'modern' : 'legacy',
    holder,
    id,
    abort,
    signal: abort.signal,
    trace: undefined,
    bodyText: undefined,
    bodyParams: undefined,
    paramHeaders: undefined,
    tokenId: undefined,
    rawResults: true,
    routed: undefined,
  };
};

const aborted = (...calls: CancellableCall[]): boolean[] => calls.map((c) => c.abort.signal.aborted);

/** Starts each call in `t`, in order; then which of them were aborted as they started. */
const started = (t: Correlation, ...calls: CancellableCall[]): boolean[] => {
  for (const c of calls) t.track(c);
  return aborted(...calls);
};

describe('the front correlation table: typed keys, one cancellation path', () => {
  it("a session's cancel aborts its own call with that id, not another session's or lane's, nor another id", () => {
    const t = new Correlation();
    const mine = call('a', 's1', 1);
    const otherSession = call('a', 's2', 1);
    const otherLane = call('b', 's1', 1);
    const otherId = call('a', 's1', '1');
    for (const c of [mine, otherSession, otherLane, otherId]) t.track(c);
    assert.equal(t.cancel({ of: 'request', lane: 'a', holder: 's1', id: 1 }), 1);
    assert.deepEqual(aborted(mine, otherSession, otherLane, otherId), [true, false, false, false], 'the id 1 and "1" stay apart');
  });

  it("a 2026-07-28 cancel aborts the lane's one modern call with that id, and none when two holders use it", () => {
    const t = new Correlation();
    const one = call('a', undefined, 7);
    const session = call('a', 's1', 7);
    t.track(one);
    t.track(session);
    assert.equal(t.cancel({ of: 'request', lane: 'a', holder: undefined, id: 7 }), 1);
    assert.deepEqual(aborted(one, session), [true, false], "a session's call is not a modern request's");
    t.release(one);
    const x = call('a', undefined, 8);
    const y = call('a', undefined, 8);
    t.track(x);
    t.track(y);
    assert.equal(t.cancel({ of: 'request', lane: 'a', holder: undefined, id: 8 }), 0, 'ambiguous: none rather than the wrong one');
    assert.deepEqual(aborted(x, y), [false, false]);
    t.release(x);
    assert.equal(t.cancel({ of: 'request', lane: 'a', holder: undefined, id: 8 }), 1, 'once one of them ended, the other is meant');
    assert.deepEqual(aborted(y), [true]);
  });

  it('a released call is no longer cancelled, and the table forgets it', () => {
    const t = new Correlation();
    const c = call('a', 's1', 'x');
    t.track(c);
    assert.equal(t.inFlight('a'), 1);
    t.release(c);
    t.release(c);
    assert.equal(t.inFlight('a'), 0);
    assert.equal(t.cancel({ of: 'request', lane: 'a', holder: 's1', id: 'x' }), 0);
    assert.equal(c.abort.signal.aborted, false);
  });

  it("a holder's end aborts all of that session's calls and fails the client requests only it could answer", async () => {
    const t = new Correlation();
    const calls = [call('a', 's1', 1), call('a', 's1', 2), call('a', 's2', 1), call('b', 's1', 1)];
    for (const c of calls) t.track(c);
    const onlyMine = t.clientRequests.ask('a', 'elicitation/create', {}, () => ['s1']);
    const shared = t.clientRequests.ask('a', 'roots/list', {}, () => ['s1', 's2']);
    assert.equal(t.cancel({ of: 'holder', lane: 'a', holder: 's1' }), 2);
    assert.deepEqual(aborted(...calls), [true, true, false, false]);
    await assert.rejects(onlyMine, /session the request reached ended/);
    let settled = false;
    void shared.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(settled, false, 'a request that reached another session still waits for it');
    t.cancel({ of: 'lane', lane: 'a' });
    await assert.rejects(shared, /lane is gone/);
  });

  it("a lane's end aborts its calls, fails its client requests and lets its parked calls' upstreams hear at once", async () => {
    const t = new Correlation();
    const mine = [call('a', 's1', 1), call('a', undefined, 2)];
    const theirs = call('b', undefined, 2);
    for (const c of [...mine, theirs]) t.track(c);
    const asked = t.clientRequests.ask('a', 'sampling/createMessage', {}, () => ['s9']);
    let expired = 0;
    const stream = t.streams.start('a', undefined, false);
    const state = t.mrtr.park({ lane: 'a', callKey: 'k', done: new Promise(() => undefined), stream, pending: new Map() }, () => {
      expired += 1;
    });
    const otherStream = t.streams.start('b', undefined, false);
    const otherState = t.mrtr.park(
      { lane: 'b', callKey: 'k', done: new Promise(() => undefined), stream: otherStream, pending: new Map() },
      () => {
        expired += 100;
      },
    );
    assert.equal(t.cancel({ of: 'lane', lane: 'a' }), 2);
    assert.deepEqual(aborted(...mine, theirs), [true, true, false]);
    await assert.rejects(asked, /lane is gone/);
    assert.equal(expired, 1, "only lane a's parked call heard");
    assert.equal(t.mrtr.take(state, 'a', 'k').ok, false, 'a dropped parked call cannot be resumed');
    assert.equal(t.mrtr.take(otherState, 'b', 'k').ok, true, "another lane's parked call still can");
  });
});

describe('progress tokens: minted once, at the front', () => {
  it("the front's call stream mints a gateway-unique token; progress under it goes back to that call with the lane's token", () => {
    const t = new Correlation();
    const s1 = t.streams.start('a', 'same', true, true, 's1');
    const s2 = t.streams.start('a', 'same', true, true, 's2');
    assert.match(String(s1.token), /^lgp-[0-9a-f-]{36}$/, 'random: an upstream cannot count other calls by it');
    assert.notEqual(s1.token, s2.token, 'two holders choosing one token get two');
    assert.equal(
      t.streams.deliver('b', s2.token, { method: 'notifications/progress', params: { progress: 1 } }),
      false,
      'not to another lane',
    );
    assert.ok(t.streams.deliver('a', s2.token, { method: 'notifications/progress', params: { progress: 1, progressToken: s2.token } }));
    assert.equal(s2.queue.length, 1);
    assert.deepEqual(s2.queue[0]?.params, { progress: 1, progressToken: 'same' });
    assert.equal(s1.queue.length, 0);
    t.streams.end(s2);
    assert.equal(t.streams.deliver('a', s2.token, { method: 'notifications/progress', params: {} }), false, 'an ended call takes nothing');
  });

  it("the host sends the front's token upstream as it came; anything else gets one of the host's own", () => {
    const p = new ProgressTokens();
    assert.equal(p.track('a', 'lgp-7'), 'lgp-7', 'not minted a second time');
    assert.deepEqual(p.owner('lgp-7'), { lane: 'a', token: 'lgp-7' });
    const clash = p.track('b', 'lgp-7');
    assert.notEqual(clash, 'lgp-7', 'a token held by a call in flight is never shared');
    assert.deepEqual(p.owner(clash), { lane: 'b', token: 'lgp-7' });
    const own = p.track('a', 'lane-chosen');
    assert.match(String(own), /^lgp-h[0-9a-f-]{36}$/, "a lane's own token never reaches the upstream");
    assert.deepEqual(p.owner(own), { lane: 'a', token: 'lane-chosen' });
    assert.match(String(p.track('a', 5)), /^lgp-h[0-9a-f-]{36}$/);
    assert.equal(p.track('a', undefined), undefined);
    p.release('lgp-7');
    assert.equal(p.owner('lgp-7'), undefined);
  });

  it("a session's cancel that came before its call (a large body still being read) cancels that call as it starts, once; nobody else's", async () => {
    const t = new Correlation(undefined, 200);
    assert.equal(t.cancel({ of: 'request', lane: 'a', holder: 's1', id: 5 }), 0, 'no call yet');
    t.cancel({ of: 'request', lane: 'a', holder: undefined, id: 6 });
    const late = call('a', 's1', 5);
    const otherSession = call('a', 's2', 5);
    const otherLane = call('b', 's1', 5);
    const modern = call('a', undefined, 6);
    for (const c of [otherSession, otherLane, modern, late]) t.track(c);
    assert.deepEqual(aborted(late, otherSession, otherLane, modern), [true, false, false, false], 'a 2026-07-28 cancel is never kept');
    const again = call('a', 's1', 5);
    t.track(again);
    assert.equal(again.abort.signal.aborted, false, 'kept for one call only');
    // Kept for a while only, and a session's end lets its kept cancels go.
    t.cancel({ of: 'request', lane: 'a', holder: 's1', id: 8 });
    t.cancel({ of: 'request', lane: 'a', holder: 's3', id: 9 });
    t.cancel({ of: 'holder', lane: 'a', holder: 's3' });
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(started(t, call('a', 's1', 8), call('a', 's3', 9)), [false, false], 'expired; its session ended');
  });

  it('a session keeps at most 16 such cancels: the oldest is let go first', () => {
    const t = new Correlation();
    for (let id = 0; id < 17; id += 1) t.cancel({ of: 'request', lane: 'a', holder: 's1', id });
    assert.deepEqual(started(t, call('a', 's1', 0), call('a', 's1', 16)), [false, true], 'the oldest let go, the newest kept');
  });

  it('only a short id is kept: a cancel naming a long one is not remembered (a lane must not park memory in them)', () => {
    const t = new Correlation();
    const long = 'x'.repeat(129);
    const edge = 'y'.repeat(128);
    t.cancel({ of: 'request', lane: 'a', holder: 's1', id: long });
    t.cancel({ of: 'request', lane: 'a', holder: 's1', id: edge });
    assert.deepEqual(started(t, call('a', 's1', long), call('a', 's1', edge)), [false, true]);
  });
});
