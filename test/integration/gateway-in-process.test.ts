import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead } from '../helpers/gateway.js';
import { type InProcessGateway, startInProcess } from '../helpers/in-process.js';
import { legacySession, modernPost, post, textOf } from '../helpers/mcp.js';

/**
 * The gateway in one process: front and hosts over the memory link, the front's real HTTP
 * server, real upstream processes. What the black-box tests check with processes, here cheaply.
 */
describe('the gateway in process (front + hosts over the memory link)', () => {
  let g: InProcessGateway;
  before(async () => {
    g = await startInProcess(`${policyHead()}
trustDomains: { public: { kind: shared }, mine: { kind: principal } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
  own: { prefix: own, domain: mine, stdio: { command: node, args: ["${FIXTURE}"] } }
  bad: { prefix: bad, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--poison"] } }
lanes:
  one: { servers: [fix, own, bad] }
  two: { servers: [fix] }
`);
  });
  after(async () => g.stop());

  it('serves each lane its loadout over HTTP, calls reach the real upstream, the poisoned server is withheld', async () => {
    const one = await g.token('one');
    const list = await modernPost(g.url, one, 1, 'tools/list');
    const names = ((list.json?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((t) => t.name);
    assert.ok(names.includes('fix_echo') && names.includes('own_echo'), names.join());
    assert.ok(!names.some((n) => n.startsWith('bad_')), 'the guard withheld bad');
    const r = await modernPost(g.url, one, 2, 'tools/call', { name: 'own_echo', arguments: { text: 'in process' } });
    assert.match(textOf(r.json?.result), /in process/);
  });

  it('a lane never reaches what is not in its loadout (403), and a bad token is refused (401)', async () => {
    const two = await g.token('two');
    const r = await modernPost(g.url, two, 3, 'tools/call', { name: 'own_echo', arguments: { text: 'x' } });
    assert.equal(r.status, 403);
    const bad = await modernPost(g.url, `${two.slice(0, -4)}AAAA`, 4, 'tools/list');
    assert.equal(bad.status, 401);
  });

  it('runs one host per shared domain and one per (per-lane domain, lane), as the process gateway does', () => {
    assert.deepEqual(g.gw.hosts.running().sort(), ['mine@one', 'public']);
  });

  it('answers HTTP outside the MCP methods plainly: 405 with Allow on /mcp, 404 elsewhere, probes for GET and HEAD, Host checked first', async () => {
    const origin = g.url.replace(/\/mcp$/, '');
    const put = await fetch(g.url, { method: 'PUT', body: '{}' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'POST, GET, DELETE');
    assert.equal(((await put.json()) as { error?: { code?: number } }).error?.code, -32000);
    const nowhere = await fetch(`${origin}/mcp/`);
    assert.equal(nowhere.status, 404);
    assert.equal(await nowhere.text(), '404 Not Found');
    assert.equal((await fetch(`${origin}/favicon.ico`)).status, 404);
    const head = await fetch(`${origin}/healthz`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    assert.deepEqual(await (await fetch(`${origin}/healthz?probe=1`)).json(), { ok: true });
    assert.equal((await fetch(`${origin}/metrics`)).status, 401, 'metrics need the operator token');
    assert.equal((await fetch(`${origin}/api/status`)).status, 401, 'so does the API (its framework loaded on demand)');
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const r = request(`${origin}/healthz`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      r.once('error', reject);
      r.end();
    });
    assert.equal(status, 403, 'a foreign Host is refused before any route');
  });

  it('a handshake-era request in a session with an MCP-Protocol-Version the gateway does not speak gets 400', async () => {
    const headers = await legacySession(g.url, await g.token('two'));
    const ask = (version?: string) =>
      post(g.url, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { ...headers, ...(version ? { 'mcp-protocol-version': version } : {}) });
    for (const bad of ['1999-01-01', '2025-11-25, 1999-01-01']) assert.equal((await ask(bad)).status, 400, bad);
    for (const good of ['2025-11-25', '2025-06-18', undefined]) assert.equal((await ask(good)).status, 200, String(good));
    const get = await fetch(g.url, { headers: { ...headers, accept: 'text/event-stream', 'mcp-protocol-version': '1999-01-01' } });
    assert.equal(get.status, 400);
  });
});
