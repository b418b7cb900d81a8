import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sseMessages } from '../helpers/sse.js';
import { policyHead, ROOT, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, modernMeta, modernPost, textOf } from '../helpers/mcp.js';

const FIXTURE_SDK = path.join(ROOT, 'test/fixtures/servers/conformance-fixture.mjs');

describe('an upstream spoken to in 2026-07-28 (upstreamEra: modern)', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  conf:
    prefix: conf
    domain: public
    upstreamEra: modern
    stdio: { command: node, args: ["${FIXTURE_SDK}", "--stdio"] }
lanes:
  modern: { servers: [conf] }
  legacy: { servers: [conf] }
`);
  });
  after(async () => gw.stop());

  it("a modern lane gets the upstream's own input_required (its keys), and its retry completes the call", async () => {
    const t = await gw.token('modern');
    const meta = { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const first = await modernPost(gw.url, t, 1, 'tools/call', {
      name: 'conf_test_input_required_result_elicitation',
      arguments: {},
      _meta: meta,
    });
    const r1 = first.json?.result as { resultType?: string; inputRequests?: Record<string, unknown>; requestState?: string } | undefined;
    assert.equal(r1?.resultType, 'input_required');
    assert.deepEqual(Object.keys(r1?.inputRequests ?? {}), ['user_name'], "the upstream's own key");
    const done = await modernPost(gw.url, t, 2, 'tools/call', {
      name: 'conf_test_input_required_result_elicitation',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: r1?.requestState,
      _meta: meta,
    });
    assert.match(textOf(done.json?.result), /Hello, Ada!/);
  });

  it('an elicitation from the modern upstream reaches a handshake-era lane, and its answer completes the call', async () => {
    const token = await gw.token('legacy');
    const h = await legacySession(gw.url, token, { elicitation: {} });
    const res = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'conf_test_input_required_result_elicitation', arguments: {} },
      }),
    });
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const next = sseMessages(res);
    const ask = await next();
    assert.equal(ask.method, 'elicitation/create');
    await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Grace' } } }),
    });
    const final = await next();
    assert.equal(final.id, 5);
    assert.match(JSON.stringify(final.result), /Hello, Grace!/);
    assert.equal((final.result as { resultType?: string }).resultType, undefined, 'a handshake-era lane gets a handshake-era result');
  });
});
