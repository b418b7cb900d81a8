import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reachLane } from '../../src/front/mcp/client-requests.js';
import { Sessions } from '../../src/front/mcp/sessions.js';
import { CallStreams } from '../../src/front/transport/call-streams.js';

/**
 * Attack round 15: a stdio server's request to a lane's client (sampling, elicitation) names no
 * call. It went to the lane's latest 2026-07-28 call, whatever server that call was for and
 * whichever call asked: a call that had not declared sampling failed with -32021 because another
 * call's tool asked, and a 2026-07-28 call's prompt went to a handshake-era session's call of the
 * same lane. A request that cannot be told to one call now goes to none.
 */
const sampling = { id: 'q1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };
const SAMPLING = { sampling: {} };

const modern = (streams: CallStreams, server: string | undefined, caps: Record<string, unknown>) => {
  const s = streams.start('a', undefined, false);
  s.caps = caps;
  if (server !== undefined) s.server = server;
  return s;
};

describe("an upstream's request goes to the one call that can have asked, or to none", () => {
  it('one 2026-07-28 call to that server: it gets the request (or, not declaring it, is told it is missing)', () => {
    const streams = new CallStreams();
    const call = modern(streams, 'everything', SAMPLING);
    modern(streams, 'memory', {});
    assert.equal(streams.deliverInput('a', sampling, 'everything'), 'delivered', "another server's call does not count");
    assert.deepEqual(call.inputs, [sampling]);
    const lone = new CallStreams();
    const bare = modern(lone, 'everything', {});
    assert.equal(lone.deliverInput('a', sampling, 'everything'), 'refused');
    assert.equal(bare.missingCapability, 'sampling');
  });

  it('two 2026-07-28 calls to that server: refused, and neither is failed nor handed the prompt', () => {
    const streams = new CallStreams();
    const asker = modern(streams, 'everything', SAMPLING);
    const other = modern(streams, 'everything', {});
    assert.equal(streams.deliverInput('a', sampling, 'everything'), 'refused');
    assert.deepEqual([asker.inputs, other.inputs], [[], []]);
    assert.deepEqual([asker.missingCapability, other.missingCapability], [undefined, undefined]);
    // A call not yet routed may be for any server: it makes the request ambiguous too.
    const streams2 = new CallStreams();
    const routed = modern(streams2, 'everything', SAMPLING);
    modern(streams2, undefined, SAMPLING);
    assert.equal(streams2.deliverInput('a', sampling, 'everything'), 'refused');
    assert.deepEqual(routed.inputs, []);
  });

  it("a handshake-era session's call and a 2026-07-28 call of the lane to that server: the request reaches neither", () => {
    const sessions = new Sessions();
    const s = sessions.create('a', '2025-11-25', { lane: 'a', jti: 'j', iat: 1, exp: 2 }, SAMPLING);
    const streams = new CallStreams();
    const legacy = streams.start('a', undefined, true, true, s.id);
    legacy.server = 'everything';
    const written: unknown[] = [];
    legacy.queue.push = (...m: unknown[]) => written.push(...m);
    const call = modern(streams, 'everything', SAMPLING);
    assert.equal(reachLane(streams, sessions, 'a', sampling, true, 'everything'), undefined);
    assert.deepEqual([written, call.inputs], [[], []]);
    // Without the 2026-07-28 call, the session's call is the one: it gets it, as before.
    streams.end(call);
    assert.deepEqual(reachLane(streams, sessions, 'a', sampling, true, 'everything'), [s.id]);
    assert.equal(written.length, 1, "on the session's call stream");
  });
});
