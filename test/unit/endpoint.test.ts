import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { isLinkTimeout, RpcEndpoint } from '../../src/rpc/endpoint.js';
import { type RpcMessage, RpcFailure } from '../../src/rpc/jsonrpc.js';

/** The protocol layer with a transport made of two arrays: what went out, and what comes back in. */
describe('the JSON-RPC protocol layer (one for every transport)', () => {
  it('correlates answers, keeps sending order, and fails a request its transport could not send', async () => {
    const out: RpcMessage[] = [];
    const e = new RpcEndpoint((m) => {
      out.push(m);
      if ('method' in m && m.method === 'broken')
        return Promise.reject(new RpcFailure({ code: -32000, message: 'HTTP upstream answered 502' }));
    });
    e.notify('notifications/initialized');
    const p = e.request('tools/list', {}, 1000);
    assert.deepEqual(
      out.map((m) => ('method' in m ? m.method : 'response')),
      ['notifications/initialized', 'tools/list'],
      'a notification sent first goes out first',
    );
    e.receive({ jsonrpc: '2.0', id: (out[1] as { id: number }).id, result: { tools: [] } });
    assert.deepEqual(await p, { tools: [] });
    await assert.rejects(e.request('broken', {}, 1000), /answered 502/);
  });

  it('a timed-out or cancelled request is abandoned: the peer is told, the transport may drop its exchange', async () => {
    const out: RpcMessage[] = [];
    const abandoned: unknown[] = [];
    const e = new RpcEndpoint((m) => void out.push(m), { onAbandon: (id) => abandoned.push(id) });
    await assert.rejects(e.request('slow', {}, 20), (err: RpcFailure) => /timed out/.test(err.message) && isLinkTimeout(err.rpc));
    assert.equal(isLinkTimeout({ data: undefined }), false, "a peer's reported timeout is not this link's");
    const ac = new AbortController();
    const p = e.request('long', {}, 0, ac.signal);
    ac.abort();
    await assert.rejects(p, /cancelled/);
    assert.equal(abandoned.length, 2);
    assert.ok(out.some((m) => 'method' in m && m.method === 'notifications/cancelled'));
  });

  it("answers the peer's requests, and fails every pending request when it closes", async () => {
    const out: RpcMessage[] = [];
    const e = new RpcEndpoint((m) => void out.push(m), { onRequest: (r) => ({ echoed: r.method }) });
    e.receive({ jsonrpc: '2.0', id: 'x1', method: 'roots/list' });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(out.at(-1), { jsonrpc: '2.0', id: 'x1', result: { echoed: 'roots/list' } });
    const p = e.request('never', {}, 0);
    e.close('link closed');
    await assert.rejects(p, /link closed/);
  });

  it('a signal that outlives its requests keeps no listener from them, however they ended', async () => {
    const out: RpcMessage[] = [];
    const e = new RpcEndpoint((m) => void out.push(m));
    const lifelong = new AbortController();
    const answered = Array.from({ length: 50 }, () => e.request('ping', {}, 1000, lifelong.signal));
    const failed = e.request('ping', {}, 1000, lifelong.signal);
    const timedOut = e.request('ping', {}, 5, lifelong.signal);
    assert.equal(EventEmitter.getEventListeners(lifelong.signal, 'abort').length, 52, 'each request in flight listens');
    const ids = out.map((m) => (m as { id: number }).id);
    for (const id of ids.slice(0, 50)) e.receive({ jsonrpc: '2.0', id, result: {} });
    e.receive({ jsonrpc: '2.0', id: ids[50] as number, error: { code: -32000, message: 'no' } });
    await Promise.all(answered);
    await assert.rejects(failed, /no/);
    await assert.rejects(timedOut, /timed out/);
    assert.equal(EventEmitter.getEventListeners(lifelong.signal, 'abort').length, 0);
  });
});
