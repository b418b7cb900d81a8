import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVERYTHING, FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { connectClient, modernPost, post, textOf } from '../helpers/mcp.js';

const POLICY = `${policyHead()}
trustDomains:
  public: { kind: shared }
servers:
  everything:
    prefix: every
    domain: public
    stdio: { command: node, args: ["${EVERYTHING}", "stdio"] }
  fix:
    prefix: fix
    domain: public
    stdio: { command: node, args: ["${FIXTURE}", "--name", "fix"] }
lanes:
  alpha: { servers: [everything, fix] }
  beta: { servers: [fix] }
`;

describe('two lanes, two loadouts, both protocol eras', () => {
  let gw: RunningGateway;
  let alpha: string;
  let beta: string;
  before(async () => {
    gw = await startGateway(POLICY);
    alpha = await gw.token('alpha');
    beta = await gw.token('beta');
  });
  after(async () => gw.stop());

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: each lane sees only its loadout, prefixed, and calls a real upstream`, async () => {
      const a = await connectClient(gw.url, alpha, era);
      const b = await connectClient(gw.url, beta, era);
      try {
        const aTools = (await a.listTools()).tools.map((t) => t.name);
        const bTools = (await b.listTools()).tools.map((t) => t.name);
        assert.ok(aTools.includes('every_echo'), `alpha sees every_echo: ${aTools.join(',')}`);
        assert.ok(aTools.includes('fix_echo'));
        assert.ok(aTools.every((n) => n.startsWith('every_') || n.startsWith('fix_') || n === 'lanegate_status'));
        assert.deepEqual(bTools.sort(), [
          'fix_ask',
          'fix_count',
          'fix_crash',
          'fix_duplicate',
          'fix_echo',
          'fix_meta',
          'fix_mutate',
          'fix_pid',
          'fix_progress',
          'fix_recall',
          'fix_remember',
          'fix_secret_fingerprint',
          'fix_sleep',
          'lanegate_status',
        ]);
        const r = await a.callTool({ name: 'every_echo', arguments: { message: `hello-${era}` } });
        assert.match(textOf(r), new RegExp(`hello-${era}`));
        const rb = await b.callTool({ name: 'fix_echo', arguments: { text: `beta-${era}` } });
        assert.equal(textOf(rb), `beta-${era}`);
        const prompts = (await a.listPrompts()).prompts.map((p) => p.name);
        assert.ok(prompts.includes('fix_greet') && prompts.some((p) => p.startsWith('every_')));
        const g = await b.getPrompt({ name: 'fix_greet', arguments: { who: 'beta' } });
        assert.match(JSON.stringify(g.messages), /Hello beta from fix/);
        const res = (await b.listResources()).resources.map((x) => x.uri);
        assert.deepEqual(res, ['fix+fixture://info']);
        const read = await b.readResource({ uri: 'fix+fixture://info' });
        assert.match(JSON.stringify(read.contents), /info of fix/);
        await assert.rejects(b.callTool({ name: 'every_echo', arguments: { message: 'x' } }));
      } finally {
        await a.close();
        await b.close();
      }
    });
  }

  it('modern: a raw 2026-07-28 request needs no session and gets resultType and cache fields', async () => {
    const d = await modernPost(gw.url, alpha, 1, 'server/discover');
    assert.equal(d.status, 200);
    const dr = d.json?.result as Record<string, unknown>;
    assert.deepEqual(dr.supportedVersions, ['2026-07-28']);
    assert.equal(d.headers.get('mcp-session-id'), null);
    const l = await modernPost(gw.url, beta, 2, 'tools/list');
    const lr = l.json?.result as Record<string, unknown>;
    assert.equal(lr.resultType, 'complete');
    assert.equal(lr.cacheScope, 'private');
    assert.equal(typeof lr.ttlMs, 'number');
    const c = await modernPost(gw.url, beta, 3, 'tools/call', { name: 'fix_echo', arguments: { text: 'raw' } });
    assert.equal(textOf(c.json?.result), 'raw');
  });

  it('refuses a tool outside the loadout with 403, whether or not the server exists', async () => {
    for (const name of ['every_echo', 'nosuch_tool', 'noprefix']) {
      const r = await modernPost(gw.url, beta, 4, 'tools/call', { name, arguments: {} });
      assert.equal(r.status, 403, name);
      assert.match(String((r.json?.error as { message?: string } | undefined)?.message), /not in this lane's catalog/);
    }
  });

  it('legacy: a session is bound to its lane; unknown sessions are 404; DELETE ends it', async () => {
    const init = await post(
      gw.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      { authorization: `Bearer ${alpha}` },
    );
    assert.equal(init.status, 200);
    const sid = init.headers.get('mcp-session-id') ?? '';
    assert.ok(sid.length > 10);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const own = await post(gw.url, list, { authorization: `Bearer ${alpha}`, 'mcp-session-id': sid });
    assert.equal(own.status, 200);
    const stolen = await post(gw.url, list, { authorization: `Bearer ${beta}`, 'mcp-session-id': sid });
    assert.equal(stolen.status, 404, "lane beta presenting alpha's session id is refused");
    assert.equal(stolen.json?.result, undefined);
    const unknown = await post(gw.url, list, { authorization: `Bearer ${alpha}`, 'mcp-session-id': 'no-such-session' });
    assert.equal(unknown.status, 404);
    const missing = await post(gw.url, list, { authorization: `Bearer ${alpha}` });
    assert.equal(missing.status, 400);
    const del = await fetch(gw.url, { method: 'DELETE', headers: { authorization: `Bearer ${alpha}`, 'mcp-session-id': sid } });
    assert.equal(del.status, 200);
    const after = await post(gw.url, list, { authorization: `Bearer ${alpha}`, 'mcp-session-id': sid });
    assert.equal(after.status, 404);
  });

  it('refuses a bad Host or Origin (DNS rebinding) and an oversized body', async () => {
    const port = new URL(gw.url).port;
    const badOrigin = await post(
      gw.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: `Bearer ${alpha}`, origin: 'http://evil.example' },
    );
    assert.equal(badOrigin.status, 403);
    const goodOrigin = await modernPost(gw.url, alpha, 1, 'tools/list');
    assert.equal(goodOrigin.status, 200);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { host: `evil.example:${port}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 403);
    const big = await post(
      gw.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(5 * 1024 * 1024) } },
      { authorization: `Bearer ${alpha}` },
    );
    assert.equal(big.status, 413);
  });
});
