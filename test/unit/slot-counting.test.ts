import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { counting, newInstance } from '../../src/host/slot-instance.js';
import { linkTimeout } from '../../src/rpc/endpoint.js';
import { ERR, RpcFailure } from '../../src/rpc/jsonrpc.js';
import type { UpstreamConn } from '../../src/upstream/conn.js';

/**
 * A dedicated child's idle timer read no calls: a call running longer than the idle time had its
 * child stopped under it. The slot now hands out its link through `counting`: the bookkeeping is
 * checked here on a link whose answers the test settles by hand; lifecycle.test.ts runs the real one.
 */
describe('a child counts its calls in flight, and is idle only once the last settles', () => {
  const link = (): { conn: UpstreamConn; settle: ((ok: boolean) => void)[] } => {
    const settle: ((ok: boolean) => void)[] = [];
    const conn: UpstreamConn = {
      pid: 1,
      init: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x', version: '1' } },
      request: (method) => {
        if (method === 'throws') throw new Error('cannot send');
        return new Promise((res, rej) => settle.push((ok) => (ok ? res({}) : rej(new Error('gone')))));
      },
      notify: () => undefined,
      stop: async () => undefined,
    };
    return { conn, settle };
  };

  it('counts each request until it settles, answered or failed, and says so once, when the last one does', async () => {
    const inst = newInstance('k', 'a', 'legacy');
    const l = link();
    let idle = 0;
    const c = counting(l.conn, inst, () => {
      idle += 1;
    });
    const a = c.request('tools/call', {}, 1000);
    const b = c.request('tools/call', {}, 1000).catch((e: Error) => e.message);
    assert.equal(inst.calls, 2);
    l.settle[0]?.(true);
    await a;
    assert.equal(inst.calls, 1);
    assert.equal(idle, 0, 'one call still runs');
    l.settle[1]?.(false);
    assert.equal(await b, 'gone', 'a failure reaches the caller as it was');
    await new Promise((r) => setImmediate(r));
    assert.equal(inst.calls, 0);
    assert.equal(idle, 1);
    assert.equal(c.pid, 1, 'the rest of the link is the same');
  });

  it('a request that throws as it is sent is not left counted', () => {
    const inst = newInstance('k', 'a', 'legacy');
    let idle = 0;
    const c = counting(link().conn, inst, () => {
      idle += 1;
    });
    assert.throws(() => c.request('throws', {}, 1000), /cannot send/);
    assert.equal(inst.calls, 0);
    assert.equal(idle, 1);
  });

  it('says when a request got no answer in time, and only then (not for an error the child answered with)', async () => {
    const inst = newInstance('k', 'a', 'legacy');
    const fails: unknown[] = [
      linkTimeout('tools/call', 5),
      new RpcFailure({ code: ERR.timeout, message: 'the child says: too slow' }),
      new Error('gone'),
    ];
    let timedOut = 0;
    const c = counting(
      { ...link().conn, request: () => Promise.reject(fails.shift()) },
      inst,
      () => undefined,
      () => {
        timedOut += 1;
      },
    );
    for (let i = 0; i < 3; i += 1) await c.request('tools/call', {}, 5).catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    assert.equal(timedOut, 1, 'once: the unanswered one');
    assert.equal(inst.calls, 0);
  });
});
