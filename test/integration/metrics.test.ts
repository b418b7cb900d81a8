import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { post, textOf } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

const POLICY = `${policyHead()}
trustDomains:
  public: { kind: shared }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  a: { servers: [fix] }
`;

describe('metrics and trace context', () => {
  let gw: RunningGateway;
  let ta: string;
  const call = (name: string, headers: Record<string, string> = {}) =>
    post(
      gw.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      },
      { authorization: `Bearer ${ta}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name, ...headers },
    );
  before(async () => {
    gw = await startGateway(POLICY);
    ta = await gw.token('a');
  });
  after(async () => gw.stop());

  it("passes the lane's W3C traceparent and tracestate to the upstream call", async () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const r = await call('fix_meta', { traceparent: tp, tracestate: 'vendor=abc' });
    const meta = JSON.parse(textOf(r.json?.result)) as Record<string, unknown>;
    assert.equal(meta.traceparent, tp);
    assert.equal(meta.tracestate, 'vendor=abc');
    assert.equal(meta['lanegate/caller'], undefined, 'the caller block is stripped for a server that does not advertise it');
    const bad = JSON.parse(textOf((await call('fix_meta', { traceparent: 'not-a-trace' })).json?.result)) as Record<string, unknown>;
    assert.equal(bad.traceparent, undefined, 'a malformed traceparent is not forwarded');
  });

  it('serves Prometheus metrics per upstream and lane behind the operator token', async () => {
    await call('fix_echo');
    await call('fix_crash');
    const scrape = () => fetch(gw.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${gw.operatorToken}` } });
    const res = await scrape();
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    // The crash is reported by the host just after the call fails: wait for it to be counted.
    const text =
      (await waitFor(async () => {
        const t = await (await scrape()).text();
        return /lanegate_restarts_total\{kind="upstream",server="fix"\} 1/.test(t) ? t : undefined;
      }, 5000)) ?? (await res.text());
    assert.match(text, /lanegate_calls_total\{server="fix",lane="a",method="tools\/call"\} [3-9]/);
    assert.match(text, /lanegate_call_duration_seconds_bucket\{le="0\.005",server="fix",lane="a"\} \d+/);
    assert.match(text, /lanegate_call_errors_total\{server="fix",lane="a",kind="unavailable"\} 1/);
    assert.match(text, /lanegate_upstream_processes\{placement="dedicated"\} \d/);
    assert.match(text, /lanegate_hosts_running 1/);
    assert.match(text, /lanegate_lanes_connected 1/);
    assert.match(text, /lanegate_restarts_total\{kind="upstream",server="fix"\} 1/);
    const anon = await fetch(gw.url.replace(/\/mcp$/, '/metrics'));
    assert.equal(anon.status, 401);
  });
});
