import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sseMessages } from '../helpers/sse.js';
import { FIXTURE, operatorApi, policyHead, ROOT, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, listenRequest, modernMeta, modernPost, textOf } from '../helpers/mcp.js';

const FIXTURE_SDK = path.join(ROOT, 'test/fixtures/servers/conformance-fixture.mjs');

/** The SDK v2 fixture (it serves both eras over stdio) behind lanegate, spoken to in `era`. */
const confPolicy = (era: 'modern' | 'match' | 'auto', lanes: string[], extra = ''): string => `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  conf: { prefix: conf, domain: public, upstreamEra: ${era}, stdio: { command: node, args: ["${FIXTURE_SDK}", "--stdio"${extra}] } }
lanes:
${lanes.map((l) => `  ${l}: { servers: [conf] }`).join('\n')}
`;

describe('an upstream spoken to in 2026-07-28 (upstreamEra: modern)', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(confPolicy('modern', ['modern', 'legacy']));
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

describe('upstreamEra: match — each lane request reaches the upstream over a link of its own era', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(confPolicy('match', ['a']));
  });
  after(async () => gw.stop());

  const processes = async (): Promise<{ server: string; lane?: string; era: string; pid: number }[]> => {
    const r = await fetch(gw.url.replace(/\/mcp$/, '/api/processes'), { headers: { authorization: `Bearer ${gw.operatorToken}` } });
    const body = (await r.json()) as { hosts: Record<string, { children: { server: string; lane?: string; era: string; pid: number }[] }> };
    return Object.values(body.hosts).flatMap((h) => h.children);
  };

  it("the modern request carries the lane's own capabilities; the legacy session keeps server-initiated requests", async () => {
    const t = await gw.token('a');
    // Modern: the upstream sees exactly what this request declared (sampling, not elicitation).
    const caps = { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const m = await modernPost(gw.url, t, 1, 'tools/call', {
      name: 'conf_test_input_required_result_capabilities',
      arguments: {},
      _meta: caps,
    });
    const r = m.json?.result as { resultType?: string; inputRequests?: Record<string, { method: string }> } | undefined;
    assert.equal(r?.resultType, 'input_required');
    assert.deepEqual(
      Object.values(r?.inputRequests ?? {}).map((x) => x.method),
      ['sampling/createMessage'],
    );
    // Legacy: a handshake-era tool that asks the client mid-call (a wire the modern era does not have).
    const h = await legacySession(gw.url, t, { sampling: {} });
    const res = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'conf_test_sampling', arguments: { prompt: 'hi' } },
      }),
    });
    const next = sseMessages(res);
    const ask = await next();
    assert.equal(ask.method, 'sampling/createMessage');
    await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ask.id,
        result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'sampled!' } },
      }),
    });
    const final = await next();
    assert.equal(final.id, 2);
    assert.match(JSON.stringify(final.result), /sampled!/);
    const mine = (await processes()).filter((p) => p.server === 'conf');
    assert.deepEqual(mine.map((p) => p.era).sort(), ['legacy', 'modern'], 'one child per era in use');
    assert.notEqual(mine[0]?.pid, mine[1]?.pid);
  });

  it('a list change on the modern link reaches the lane (the host holds a subscription upstream)', async () => {
    const t = await gw.token('a');
    // The modern child is up before the lane listens: its start is no change of the catalog.
    assert.match(
      textOf((await modernPost(gw.url, t, 9, 'tools/call', { name: 'conf_test_simple_text', arguments: {} })).json?.result),
      /./,
    );
    const stop = new AbortController();
    const listen = await listenRequest(gw.url, t, 10, { toolsListChanged: true }, stop.signal);
    const next = sseMessages(listen);
    assert.equal((await next()).method, 'notifications/subscriptions/acknowledged');
    const fired = await modernPost(gw.url, t, 11, 'tools/call', { name: 'conf_test_trigger_tool_change', arguments: {} });
    assert.match(textOf(fired.json?.result), /published/);
    const note = await Promise.race([next(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000))]);
    stop.abort();
    assert.equal(note?.method, 'notifications/tools/list_changed');
  });

  it("a resource update from the modern link reaches the lane's listen stream that holds the URI", async () => {
    const t = await gw.token('a');
    assert.match(
      textOf((await modernPost(gw.url, t, 30, 'tools/call', { name: 'conf_test_simple_text', arguments: {} })).json?.result),
      /./,
    );
    const stop = new AbortController();
    const uri = 'conf+test://watched-resource';
    const listen = await listenRequest(gw.url, t, 31, { resourceSubscriptions: [uri] }, stop.signal);
    const next = sseMessages(listen);
    const ack = await next();
    assert.deepEqual((ack.params as { notifications: unknown }).notifications, { resourceSubscriptions: [uri] });
    // The upstream's own listen is opened asynchronously: trigger until the update arrives (bounded).
    let note: Record<string, unknown> | undefined;
    const waiting = next().then((m) => {
      note = m;
    });
    for (let i = 0; i < 20 && !note; i += 1) {
      await modernPost(gw.url, t, 40 + i, 'tools/call', { name: 'conf_test_trigger_resource_update', arguments: {} });
      await Promise.race([waiting, new Promise((r) => setTimeout(r, 250))]);
    }
    stop.abort();
    assert.equal(note?.method, 'notifications/resources/updated');
    assert.equal((note?.params as { uri?: string } | undefined)?.uri, uri);
  });

  it('inputResponses without a requestState make a fresh call (passed to the upstream) instead of an error', async () => {
    const t = await gw.token('a');
    const r = await modernPost(gw.url, t, 20, 'tools/call', {
      name: 'conf_test_input_required_result_elicitation',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Lin' } }, stray: { action: 'decline' } },
      _meta: { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
    });
    assert.equal(r.status, 200);
    // The upstream (2026-07-28) received the responses and used the one it knows.
    assert.equal((r.json?.result as { resultType?: string } | undefined)?.resultType, 'complete');
    assert.equal(textOf(r.json?.result), 'Hello, Lin!');
  });
});

describe("upstreamEra: auto (the default) — the lane's era when the upstream speaks it, else the other", () => {
  const children = async (gw: RunningGateway, server: string) => {
    const r = await fetch(gw.url.replace(/\/mcp$/, '/api/processes'), { headers: { authorization: `Bearer ${gw.operatorToken}` } });
    const body = (await r.json()) as { hosts: Record<string, { children: { server: string; lane?: string; era: string }[] }> };
    return Object.values(body.hosts)
      .flatMap((h) => h.children)
      .filter((c) => c.server === server)
      .map((c) => `${c.lane ?? '*'}:${c.era}`)
      .sort();
  };
  const legacyCall = async (gw: RunningGateway, token: string, name: string) => {
    const h = await legacySession(gw.url, token);
    const r = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: { text: 'old' } } }),
    });
    // JSON, or SSE if a notification came before the result: the result is the last message.
    const text = await r.text();
    const last = (r.headers.get('content-type') ?? '').includes('text/event-stream')
      ? (text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .at(-1)
          ?.slice(5) ?? '{}')
      : text;
    return textOf((JSON.parse(last) as { result?: unknown }).result ?? {});
  };

  // One gateway for the four servers (each behind a lane of its own, so that no test starts another's
  // child): two handshake-era-only fixtures with no upstreamEra (auto is the default), and the SDK v2
  // fixture three ways, with upstreamEra: auto written out.
  let gw: RunningGateway;
  const conf = (name: string, extra = '') =>
    `  ${name}: { prefix: ${name}, domain: public, upstreamEra: auto, stdio: { command: node, args: ["${FIXTURE_SDK}", "--stdio"${extra}] } }`;
  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  p: { prefix: p, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
  q: { prefix: q, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
${conf('conf')}
${conf('nosub', ', "--no-resource-subscribe"')}
${conf('mo', ', "--modern-only"')}
lanes:
  a: { servers: [p, q] }
  dual: { servers: [conf] }
  nosub: { servers: [nosub] }
  mo: { servers: [mo] }
`);
  });
  after(async () => gw.stop());

  it('a handshake-era-only server: one child per lane whatever era its requests come in, in either order', async () => {
    const t = await gw.token('a');
    const modernEcho = async (name: string) =>
      textOf((await modernPost(gw.url, t, 3, 'tools/call', { name, arguments: { text: 'new' } })).json?.result);
    // p: 2026-07-28 first — the upstream refuses server/discover and is initialized instead; that
    // child becomes the handshake-era one, and the handshake-era request that follows uses it.
    assert.equal(await modernEcho('p_echo'), 'new');
    assert.equal(await legacyCall(gw, t, 'p_echo'), 'old');
    assert.deepEqual(await children(gw, 'p'), ['a:legacy']);
    // q: handshake era first, then 2026-07-28 — the second child it tries is stopped in favour of the first.
    assert.equal(await legacyCall(gw, t, 'q_echo'), 'old');
    assert.equal(await modernEcho('q_echo'), 'new');
    assert.equal(await modernEcho('q_echo'), 'new');
    assert.deepEqual(await children(gw, 'q'), ['a:legacy']);
  });

  it('a dual-era server: each lane request over a link of its own era', async () => {
    const t = await gw.token('dual');
    const caps = { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const first = await modernPost(gw.url, t, 1, 'tools/call', {
      name: 'conf_test_input_required_result_elicitation',
      arguments: {},
      _meta: caps,
    });
    const r = first.json?.result as { resultType?: string; inputRequests?: Record<string, unknown> } | undefined;
    assert.deepEqual(Object.keys(r?.inputRequests ?? {}), ['user_name'], "the upstream's own key: a 2026-07-28 link");
    assert.match(await legacyCall(gw, t, 'conf_test_simple_text'), /./);
    assert.deepEqual(await children(gw, 'conf'), ['dual:legacy', 'dual:modern']);
  });

  it('a resource subscription a 2026-07-28 upstream does not honour is not acknowledged to the lane', async () => {
    const t = await gw.token('nosub');
    const res = await listenRequest(gw.url, t, 'sub-9', { resourceSubscriptions: ['nosub+test://watched-resource'] });
    const ack = await sseMessages(res)();
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual((ack.params as { notifications: unknown }).notifications, {}, 'nothing honoured, nothing promised');
  });

  it('a server that speaks only 2026-07-28 serves handshake-era lanes too, over its one link', async () => {
    const t = await gw.token('mo');
    assert.match(await legacyCall(gw, t, 'mo_test_simple_text'), /simple text/i);
    assert.equal((await modernPost(gw.url, t, 5, 'tools/call', { name: 'mo_test_simple_text', arguments: {} })).status, 200);
    assert.deepEqual(await children(gw, 'mo'), ['mo:modern']);
  });
});

describe('Mcp-Param headers are checked by the host against the surface it holds', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  conf: { prefix: conf, domain: public, stdio: { command: node, args: ["${FIXTURE_SDK}", "--stdio"] } }
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  a: { servers: [conf, fix] }
`);
  });
  after(async () => gw.stop());

  const call = (token: string, id: number, region: string | undefined, headers: Record<string, string> = {}) =>
    modernPost(
      gw.url,
      token,
      id,
      'tools/call',
      { name: 'conf_test_x_mcp_header', arguments: region === undefined ? {} : { region } },
      headers,
    );

  it('a matching header passes, a mismatched or missing one is 400 -32020, and no other server of the lane is started', async () => {
    const t = await gw.token('a');
    const ok = await call(t, 1, 'eu-west', { 'mcp-param-region': 'eu-west' });
    assert.equal(ok.status, 200);
    assert.match(JSON.stringify(ok.json), /region=eu-west/);
    const wrong = await call(t, 2, 'eu-west', { 'mcp-param-region': 'us-east' });
    assert.equal(wrong.status, 400);
    assert.equal((wrong.json?.error as { code?: number } | undefined)?.code, -32020);
    const missing = await call(t, 3, 'eu-west');
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.json), /Mcp-Param-Region header is absent/);
    const p = (await operatorApi(gw, '/api/processes')) as { hosts: Record<string, { children: { server: string }[] }> };
    const started = Object.values(p.hosts).flatMap((h) => h.children.map((c) => c.server));
    assert.ok(started.includes('conf'));
    assert.ok(!started.includes('fix'), `a header check lists no other server (started: ${started.join(', ')})`);
  });
});
