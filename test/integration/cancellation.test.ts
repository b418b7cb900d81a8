import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type RunningGateway, sleepMarkerGateway } from '../helpers/gateway.js';
import { legacySession } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';
import { MODERN_META, modernCall } from '../helpers/http.js';

/**
 * A lane's notifications/cancelled reaches the upstream call and ends it. It runs after phase 1 (test/run.mjs
 * TIMED): the call must end within 3 s, before the upstream's 4 s sleep would have.
 */
describe('cancellation propagates to the upstream call', () => {
  let gw: RunningGateway;
  let marker: string;
  before(async () => {
    ({ gw, marker } = await sleepMarkerGateway(['a']));
  });
  after(async () => gw.stop());

  it('legacy: notifications/cancelled stops the upstream work; nothing completes later', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const token = await gw.token('a');
    const h = await legacySession(gw.url, token);
    await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fix_echo', arguments: { text: 'warm' } } }),
    });
    const started = Date.now();
    const pending = fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fix_sleep', arguments: { ms: 4000 } } }),
    });
    await new Promise((r) => setTimeout(r, 300));
    const cancel = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'user' } }),
    });
    assert.equal(cancel.status, 202);
    const res = await pending;
    const body = (await res.json()) as { error?: { code: number } };
    assert.ok(Date.now() - started < 3000, 'the call ended before the upstream sleep would have');
    assert.equal(body.error?.code, -32800);
    const seen = await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8').includes('cancelled'), 3000);
    assert.ok(seen, 'the upstream received the cancellation');
    await new Promise((r) => setTimeout(r, 4200 - (Date.now() - started)));
    assert.ok(!readFileSync(marker, 'utf8').includes('completed'), 'the upstream work never completed');
  });

  it('a call whose id is an integer beyond 2^53 is cancelled by that id, exactly (issue 19: ids kept exact)', async () => {
    const token = await gw.token('a');
    const h = await legacySession(gw.url, token);
    const big = '12345678901234567891';
    const started = Date.now();
    const pending = fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: `{"jsonrpc":"2.0","id":${big},"method":"tools/call","params":{"name":"fix_sleep","arguments":{"ms":4000}}}`,
    });
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    // A neighbouring id that rounds to the same double must not cancel it; the exact one does.
    const near = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890,"reason":"user"}}`,
    });
    assert.equal(near.status, 202);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(settled, false, 'a cancel naming another id (the same double) left the call running');
    const cancel = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${big},"reason":"user"}}`,
    });
    assert.equal(cancel.status, 202);
    const text = await (await pending).text();
    assert.ok(Date.now() - started < 3000, `the call ended before the upstream sleep would have (${Date.now() - started} ms)`);
    assert.match(text, new RegExp(`"id":${big}[,}]`), 'the error answers the exact id');
    assert.match(text, /-32800/);
  });

  it("2026-07-28: a notifications/cancelled after the call's answer turned into a stream (its first progress) still stops it (attack round 14)", async () => {
    const token = await gw.token('a');
    const c = modernCall(token, 41, 'fix_sleep', { ms: 4000 });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 41,
      method: 'tools/call',
      params: { name: 'fix_sleep', arguments: { ms: 4000 }, _meta: { ...MODERN_META, progressToken: 'p41' } },
    });
    const started = Date.now();
    const res = await fetch(gw.url, {
      method: 'POST',
      headers: { ...c.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream', 'a stream: the progress came first');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /notifications\/progress/);
    const cancel = await fetch(gw.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'notifications/cancelled',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 41, reason: 'user', _meta: MODERN_META },
      }),
    });
    assert.equal(cancel.status, 202);
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    assert.ok(Date.now() - started < 3000, `the call ended before the upstream sleep would have (${Date.now() - started} ms)`);
    assert.match(rest, /-32800/, 'answered cancelled');
    assert.ok(!rest.includes('slept'), 'no result');
  });

  it("legacy: a cancellation sent while the call's large body is still arriving cancels the call once it has arrived (attack round 14)", async () => {
    const token = await gw.token('a');
    const h = await legacySession(gw.url, token);
    const url = new URL(gw.url);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 51,
      method: 'tools/call',
      params: { name: 'fix_echo', arguments: { text: 'e'.repeat(3_000_000) } },
    });
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    let got = '';
    socket.on('data', (b: Buffer) => {
      got += b.toString('latin1');
    });
    const head = [
      `POST ${url.pathname} HTTP/1.1`,
      `host: ${url.host}`,
      `content-length: ${body.length}`,
      'connection: close',
      ...Object.entries(h).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n${body.slice(0, 1_000_000)}`);
    await new Promise((r) => setTimeout(r, 200));
    const cancel = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 51, reason: 'user' } }),
    });
    assert.equal(cancel.status, 202);
    // Not end(): a request whose client half-closes is never answered (node closes it).
    socket.write(body.slice(1_000_000));
    await new Promise((r) => socket.once('close', r));
    assert.match(got, /-32800/, `answered cancelled: ${got.slice(0, 300)}`);
    assert.ok(!got.includes('eeeeeeee'), 'not the echo');
    // The session's next call (a new id, as the spec wants) runs.
    const next = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', id: 52, method: 'tools/call', params: { name: 'fix_echo', arguments: { text: 'after' } } }),
    });
    assert.match(await next.text(), /after/);
  });

  it("legacy: a session ended with DELETE stops its call in flight upstream; another session's call with the same id runs on", async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const token = await gw.token('a');
    const doomed = await legacySession(gw.url, token);
    const kept = await legacySession(gw.url, token);
    const sleepCall = (h: Record<string, string>, ms: number) =>
      fetch(gw.url, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'fix_sleep', arguments: { ms } } }),
      }).then((r) => r.text());
    const seenBefore = existsSync(marker) ? readFileSync(marker, 'utf8').length : 0;
    const lines = (): string[] => (existsSync(marker) ? readFileSync(marker, 'utf8').slice(seenBefore).split('\n').filter(Boolean) : []);
    const started = Date.now();
    const gone = sleepCall(doomed, 4000).catch(() => '');
    const stays = sleepCall(kept, 1500);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await fetch(gw.url, { method: 'DELETE', headers: doomed })).status, 200);
    assert.ok(await waitFor(() => lines().includes('cancelled'), 3000), 'the upstream received the cancellation');
    assert.ok(Date.now() - started < 3000, 'cancelled before the upstream sleep would have ended');
    assert.match(await stays, /slept/, "the other session's call with the same id was not touched");
    await gone;
    await new Promise((r) => setTimeout(r, Math.max(0, 4300 - (Date.now() - started))));
    assert.deepEqual(lines().sort(), ['cancelled', 'completed'], "only the other session's call completed upstream");
  });
});
