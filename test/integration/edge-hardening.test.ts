import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fixtureTwoLanes, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, modernMeta } from '../helpers/mcp.js';

/** The smaller defects found beside the byte limits (issue 19), each through the real gateway. */

/** Sends raw HTTP/1.1 head (and maybe a body later) and returns what came back first. */
const rawExchange = (url: URL, head: string, body?: string, waitMs = 1500): Promise<string> =>
  new Promise((resolve) => {
    const s = connect({ host: url.hostname, port: Number(url.port) });
    let got = '';
    s.setEncoding('latin1');
    s.on('data', (c: string) => {
      got += c;
      if (body !== undefined && got.startsWith('HTTP/1.1 100')) {
        s.write(body);
        body = undefined;
      }
    });
    s.write(head);
    setTimeout(() => {
      s.destroy();
      resolve(got);
    }, waitMs);
  });

/** A POST inside a handshake-era session (its headers from legacySession). */
const sessionPost = (url: string, h: Record<string, string>, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers: h, body: JSON.stringify(body) });

describe('edge hardening: one rule for every spelling, nothing of lanegate reaches an upstream, ids kept exact', () => {
  let gw: RunningGateway;
  let token: string;
  let url: URL;
  before(async () => {
    gw = await startGateway(`${policyHead()}\n${fixtureTwoLanes()}`);
    token = await gw.token('a');
    url = new URL(gw.url);
  });
  after(async () => {
    await gw?.stop();
  });

  it('the operator plane takes the bearer scheme in any case, as /mcp does', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const r = await fetch(`${gw.origin}/api/status`, { headers: { authorization: `${scheme} ${gw.operatorToken}` } });
      assert.equal(r.status, 200, scheme);
    }
    const bad = await fetch(`${gw.origin}/api/status`, { headers: { authorization: 'bearer lgo_wrong' } });
    assert.equal(bad.status, 401);
  });

  it('in the handshake era a lane’s lanegate/* _meta keys never reach the upstream (its own keys do)', async () => {
    const r = await sessionPost(gw.url, await legacySession(gw.url, token), {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'fix_meta', arguments: {}, _meta: { 'lanegate/caller': { lane: 'b' }, 'lanegate/x': 1, mine: 'kept' } },
    });
    const text = await r.text();
    assert.match(text, /mine/);
    // The fixture does not take the caller block, so nothing of lanegate's namespace reaches it.
    assert.doesNotMatch(text, /lanegate\//);
  });

  it('initialize inside an existing session is refused, not a second session', async () => {
    const r = await sessionPost(gw.url, await legacySession(gw.url, token), {
      jsonrpc: '2.0',
      id: 3,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    assert.equal(r.status, 400);
    assert.equal(r.headers.get('mcp-session-id'), null);
    assert.match(((await r.json()) as { error: { message: string } }).error.message, /already initialized/);
  });

  it('a session may not reuse the id of its call still in flight; another session may, and so may it afterwards', async () => {
    const h = await legacySession(gw.url, token);
    const call = (headers: Record<string, string>, id: unknown, name: string, args: Record<string, unknown>) =>
      sessionPost(gw.url, headers, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const slow = call(h, 7, 'fix_sleep', { ms: 1500 });
    await new Promise((r) => setTimeout(r, 300));
    const dup = await call(h, 7, 'fix_echo', { text: 'again' });
    assert.equal(dup.status, 400);
    const e = ((await dup.json()) as { error: { code: number; message: string } }).error;
    assert.equal(e.code, -32600);
    assert.match(e.message, /the id of this request is in use by a call of this session still in flight/);
    // Another session's id 7 is its own; "7" is another id than 7.
    const other = await call(await legacySession(gw.url, token), 7, 'fix_echo', { text: 'other' });
    assert.match(await other.text(), /other/);
    assert.match(await (await call(h, '7', 'fix_echo', { text: 'string id' })).text(), /string id/);
    assert.equal((await slow).status, 200, 'the call in flight was not disturbed');
    assert.match(await (await call(h, 7, 'fix_echo', { text: 'reused after' })).text(), /reused after/);
  });

  it('a completion reaches a server only for a prompt or resource it lists (attack round 10)', async () => {
    const h = await legacySession(gw.url, token);
    const complete = async (ref: Record<string, unknown>) => {
      const r = await sessionPost(gw.url, h, {
        jsonrpc: '2.0',
        id: 9,
        method: 'completion/complete',
        params: { ref, argument: { name: 'who', value: 'a' } },
      });
      const text = await r.text();
      return { status: r.status, text };
    };
    const listed = await complete({ type: 'ref/prompt', name: 'fix_greet' });
    assert.match(listed.text, /ref\/prompt:greet/, 'a listed prompt is completed by its server');
    const resource = await complete({ type: 'ref/resource', uri: 'fix+fixture://info' });
    assert.match(resource.text, /ref\/resource:fixture:\/\/info/, 'a listed resource too');
    for (const ref of [
      { type: 'ref/prompt', name: `fix_${'n'.repeat(100_000)}` },
      { type: 'ref/prompt', name: 'fix_nope' },
      { type: 'ref/resource', uri: 'fix+fixture://nope/{id}' },
    ]) {
      const r = await complete(ref);
      assert.doesNotMatch(r.text, /"values"/, `${JSON.stringify(ref).slice(0, 60)} reached the server`);
      assert.match(r.text, /not in this lane's catalog/);
      assert.ok(r.text.length < 2000, `the refusal is ${r.text.length} bytes`);
    }
  });

  it('an integer id beyond 2^53 comes back exactly, in both eras', async () => {
    const big = '12345678901234567891';
    const modern = await fetch(gw.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'fix_echo',
      },
      body: `{"jsonrpc":"2.0","id":${big},"method":"tools/call","params":{"name":"fix_echo","arguments":{"text":"hi"},"_meta":${JSON.stringify(modernMeta)}}}`,
    });
    const mt = await modern.text();
    assert.match(mt, new RegExp(`"id":${big}[,}]`));
    const h = await legacySession(gw.url, token);
    const legacy = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: `{"jsonrpc":"2.0","id":-${big},"method":"tools/list"}`,
    });
    assert.match(await legacy.text(), new RegExp(`"id":-${big}[,}]`));
  });

  it('small chunked bodies (no Content-Length) take no byte turn: two chunked calls in flight do not hold the next (attack round 11)', async () => {
    const h = await legacySession(gw.url, token);
    /** A POST whose body goes out chunked (written, then ended: no Content-Length), resolving with its status and time. */
    const chunked = (body: unknown): Promise<{ status: number; ms: number }> =>
      new Promise((resolve, reject) => {
        const t0 = Date.now();
        const req = request(url, { method: 'POST', headers: h }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Date.now() - t0 }));
        });
        req.on('error', reject);
        req.write(JSON.stringify(body));
        req.end();
      });
    const slow = [1, 2].map((i) =>
      chunked({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'fix_sleep', arguments: { ms: 3000 } } }),
    );
    await new Promise((r) => setTimeout(r, 300));
    const quick = await chunked({ jsonrpc: '2.0', id: 103, method: 'tools/call', params: { name: 'fix_echo', arguments: { text: 'q' } } });
    assert.equal(quick.status, 200);
    assert.ok(quick.ms < 1500, `the third chunked call waited ${quick.ms} ms behind two chunked calls in flight`);
    for (const s of await Promise.all(slow)) assert.equal(s.status, 200);
  });

  it('a progress token beyond 2^53 comes back exactly on every progress notification', async () => {
    const big = '12345678901234567891';
    const h = await legacySession(gw.url, token);
    const r = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fix_progress","arguments":{},"_meta":{"progressToken":${big}}}}`,
    });
    const text = await r.text();
    const notes = text.match(/"method":"notifications\/progress"[^\n]*/g) ?? [];
    assert.equal(notes.length, 3, text.slice(0, 600));
    for (const n of notes) assert.match(n, new RegExp(`"progressToken":${big}[,}]`));
    assert.doesNotMatch(text, /lanegate-id/, 'no stand-in is ever written');
    assert.match(text, /"id":5[,}]/);
  });

  it('Expect: 100-continue gets 100 only after the token checks out', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}';
    const head = (auth: string) =>
      [
        'POST /mcp HTTP/1.1',
        `host: ${url.host}`,
        'content-type: application/json',
        'accept: application/json, text/event-stream',
        'expect: 100-continue',
        `content-length: ${body.length}`,
        `authorization: ${auth}`,
        '',
        '',
      ].join('\r\n');
    const refused = await rawExchange(url, head('Bearer not-a-token'), body);
    assert.match(refused, /^HTTP\/1\.1 401/);
    assert.doesNotMatch(refused, /100 Continue/);
    const ok = await rawExchange(url, head(`Bearer ${token}`), body);
    assert.match(ok, /^HTTP\/1\.1 100 Continue/);
    // A body that could never be accepted is refused at once, never invited (and takes no byte turn).
    const huge = head(`Bearer ${token}`).replace(`content-length: ${body.length}`, 'content-length: 10737418240');
    const refusedBig = await rawExchange(url, huge, undefined, 1500);
    assert.match(refusedBig, /^HTTP\/1\.1 413/);
    assert.doesNotMatch(refusedBig, /100 Continue/);
  });
});
