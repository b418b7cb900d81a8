import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newInstance } from '../../src/host/slot-instance.js';
import { pingAfterTimeout, STUCK_PING_MIN_MS, STUCK_PING_MS } from '../../src/host/stuck-child.js';
import { linkTimeout } from '../../src/rpc/endpoint.js';
import { ERR, RpcFailure } from '../../src/rpc/jsonrpc.js';
import type { UpstreamConn } from '../../src/upstream/conn.js';

/**
 * The decision after a call timed out, on a link whose ping answer the test chooses (the gateway
 * test, integration/stuck-child.test.ts, runs it on a real blocked child): killed only when the
 * ping went unanswered AND the child wrote nothing since it was sent AND it is still the live child.
 */
describe('a child whose call timed out is killed only when it is stuck', () => {
  const link = (ping: () => Promise<Record<string, unknown>>, heard: () => boolean, kill = true) => {
    const seen = { pings: [] as number[], kills: [] as string[], watching: 0 };
    const conn: UpstreamConn = {
      pid: 1,
      init: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x', version: '1' } },
      request: (method, _params, timeoutMs) => {
        assert.equal(method, 'ping');
        seen.pings.push(timeoutMs);
        return ping();
      },
      notify: () => undefined,
      stop: async () => undefined,
      watchOutput: () => {
        seen.watching += 1;
        const stop = () => {
          seen.watching -= 1;
        };
        return { heard, stop };
      },
      ...(kill ? { kill: (reason: string) => void seen.kills.push(reason) } : {}),
    };
    return { conn, seen };
  };
  const config = (callTimeoutMs: number) => ({ name: 'fix', callTimeoutMs });
  const unanswered = () => Promise.reject(linkTimeout('ping', 5));

  it('no answer and nothing written since the ping: killed, the reason kept for its crash', async () => {
    const inst = newInstance('k', 'a', 'legacy');
    const l = link(unanswered, () => false);
    await pingAfterTimeout(inst, l.conn, config(2_000), () => true);
    assert.deepEqual(l.seen.pings, [STUCK_PING_MIN_MS], 'a 2 s callTimeout is raised to the floor');
    assert.equal(l.seen.kills.length, 1);
    assert.match(l.seen.kills[0] ?? '', /upstream "fix" is stuck: a call timed out and a ping got no answer within 5 s/);
    assert.equal(inst.killedFor, 'stuck: a call timed out and a ping got no answer within 5 s');
    assert.equal(inst.pinging, false);
    assert.equal(l.seen.watching, 0, 'its output is no longer watched');
  });

  it('kept: it answered (even with an error), it wrote something meanwhile, or it is no longer the live child', async () => {
    const cases: [string, () => Promise<Record<string, unknown>>, () => boolean, () => boolean][] = [
      ['answered', () => Promise.resolve({}), () => false, () => true],
      [
        'answered with an error',
        () => Promise.reject(new RpcFailure({ code: ERR.methodNotFound, message: 'no ping' })),
        () => false,
        () => true,
      ],
      [
        'answered with a timeout of its own, marker copied',
        () => Promise.reject(new RpcFailure({ code: ERR.timeout, message: 't', data: { 'lanegate/timed-out-here': true } })),
        () => false,
        () => true,
      ],
      ['wrote since the ping', unanswered, () => true, () => true],
      ['replaced meanwhile', unanswered, () => false, () => false],
    ];
    for (const [what, ping, heard, current] of cases) {
      const inst = newInstance('k', 'a', 'legacy');
      const l = link(ping, heard);
      await pingAfterTimeout(inst, l.conn, config(60_000), current);
      assert.deepEqual(l.seen.kills, [], what);
      assert.equal(inst.killedFor, undefined, what);
      assert.equal(l.seen.watching, 0, `${what}: its output is no longer watched`);
    }
  });

  it('one ping at a time per child, capped at 10 s; none at all for a link that cannot be killed (HTTP)', async () => {
    const inst = newInstance('k', 'a', 'legacy');
    let release: () => void = () => undefined;
    const l = link(
      () => new Promise((res) => (release = () => res({}))),
      () => false,
    );
    const first = pingAfterTimeout(inst, l.conn, config(3_600_000), () => true);
    await pingAfterTimeout(inst, l.conn, config(3_600_000), () => true);
    assert.deepEqual(l.seen.pings, [STUCK_PING_MS], 'the second timeout found a ping out');
    release();
    await first;
    const http = link(unanswered, () => false, false);
    await pingAfterTimeout(newInstance('h', 'a', 'legacy'), http.conn, config(2_000), () => true);
    assert.deepEqual(http.seen.pings, []);
  });
});
