import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa, type ResultPromise } from 'execa';
import { policyHead, ROOT, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';

const FIXTURE_HTTP = path.join(ROOT, 'test/fixtures/servers/conformance-fixture.mjs');

describe('an HTTP (Streamable HTTP) upstream behind a host', () => {
  let upstream: ResultPromise;
  let gw: RunningGateway;
  let token: string;
  before(async () => {
    upstream = execa(process.execPath, [FIXTURE_HTTP, '--http', '0'], { buffer: false, reject: false });
    upstream.stdout?.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const t = setTimeout(() => reject(new Error(`fixture did not start: ${out}`)), 15_000);
      upstream.stdout?.on('data', (c: string) => {
        out += c;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m?.[1]) {
          clearTimeout(t);
          resolve(m[1]);
        }
      });
    });
    gw = await startGateway(
      `${policyHead()}
trustDomains:
  remote: { kind: shared, secrets: { UPSTREAM_TOKEN: { file: ./secrets/upstream.token } } }
servers:
  web:
    prefix: web
    domain: remote
    http: { url: "${url}", headers: { Authorization: "Bearer {secret:UPSTREAM_TOKEN}" } }
lanes:
  a: { servers: [web] }
`,
      { secrets: { 'secrets/upstream.token': 'upstream-canary-secret' } },
    );
    token = await gw.token('a');
  });
  after(async () => {
    await gw?.stop();
    upstream?.kill();
  });

  it('lists and calls through the host, prefixed, in the 2026-07-28 era on the lane side', async () => {
    const list = await modernPost(gw.url, token, 1, 'tools/list');
    const names = ((list.json?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((t) => t.name);
    assert.ok(names.includes('web_test_simple_text'), names.join(','));
    const r = await modernPost(gw.url, token, 2, 'tools/call', { name: 'web_test_simple_text', arguments: {} });
    assert.equal(r.status, 200);
    assert.ok(textOf(r.json?.result).length > 0);
  });

  it('review says an HTTP upstream is never shared (not_stdio)', async () => {
    const res = await fetch(gw.url.replace(/\/mcp$/, '/api/servers'), { headers: { authorization: `Bearer ${gw.operatorToken}` } });
    const rows = ((await res.json()) as { servers: { server: string; placement: string; reasons: { code: string }[] }[] }).servers;
    const web = rows.find((r) => r.server === 'web');
    assert.equal(web?.placement, 'dedicated');
    assert.ok(web?.reasons.some((x) => x.code === 'not_stdio'));
  });
});
