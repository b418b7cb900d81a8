import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sseMessages } from '../helpers/sse.js';
import { FIXTURE, fixtureTwoLanes, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, modernMeta } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

const POLICY = `${policyHead()}
trustDomains:
  public: { kind: shared }
servers:
  fix:
    prefix: fix
    domain: public
    stdio: { command: node, args: ["${FIXTURE}"] }
    probe: [{ tool: echo, args: { text: "{{canary}}" } }, { tool: pid }, { tool: progress }]
lanes:
  a: { servers: [fix] }
  b: { servers: [fix] }
`;

/** A tools/call that may be answered as SSE: returns every JSON-RPC message in order. */
const callStreaming = async (
  url: string,
  token: string,
  era: 'legacy' | 'modern',
  name: string,
  progressToken: string,
  session?: string,
) => {
  const params = { name, arguments: {}, _meta: { progressToken, ...(era === 'modern' ? modernMeta : {}) } };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(era === 'modern'
        ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name }
        : { 'mcp-session-id': session ?? '' }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
  });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5).trim()) as Record<string, unknown>);
  }
  return [JSON.parse(text) as Record<string, unknown>];
};

describe('request-scoped notifications reach only the call they belong to', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  const op = (p: string, method = 'GET') =>
    fetch(gw.url.replace(/\/mcp$/, p), { method, headers: { authorization: `Bearer ${gw.operatorToken}` } });
  before(async () => {
    gw = await startGateway(POLICY);
    await op('/api/measure', 'POST');
    await waitFor(async () => !((await (await op('/api/measure')).json()) as { running: boolean }).running, 60_000, 300);
    const dir = gw.dir;
    await gw.stop();
    gw = await startGateway(POLICY, { dir });
    ta = await gw.token('a');
    tb = await gw.token('b');
  });
  after(async () => gw.stop());

  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: two lanes on ONE shared child, same progress token, each sees only its own progress`, async () => {
      const sessions: Record<string, string | undefined> = {};
      if (era === 'legacy') {
        sessions.a = (await legacySession(gw.url, ta))['mcp-session-id'];
        sessions.b = (await legacySession(gw.url, tb))['mcp-session-id'];
      }
      const pids = await Promise.all([
        callStreaming(gw.url, ta, era, 'fix_pid', 'x', sessions.a),
        callStreaming(gw.url, tb, era, 'fix_pid', 'x', sessions.b),
      ]);
      const pidOf = (msgs: Record<string, unknown>[]) => JSON.stringify(msgs.at(-1)?.result).match(/"text":"(\d+)"/)?.[1];
      assert.equal(pidOf(pids[0]), pidOf(pids[1]), 'both lanes are served by the same (shared) child');
      const [ra, rb] = await Promise.all([
        callStreaming(gw.url, ta, era, 'fix_progress', 'same-token', sessions.a),
        callStreaming(gw.url, tb, era, 'fix_progress', 'same-token', sessions.b),
      ]);
      for (const msgs of [ra, rb]) {
        const progress = msgs.filter((m) => m.method === 'notifications/progress');
        assert.deepEqual(
          progress.map((m) => (m.params as { progress: number; progressToken: string }).progress),
          [1, 2, 3],
          'exactly its own three progress notifications, in order',
        );
        assert.ok(
          progress.every((m) => (m.params as { progressToken: string }).progressToken === 'same-token'),
          'with the token the lane chose',
        );
        assert.match(JSON.stringify(msgs.at(-1)?.result), /done with lgp-\d+/, "the upstream saw a gateway-unique token, not the lane's");
      }
      const rev = await op('/api/servers');
      const rows = ((await rev.json()) as { servers: { server: string; placement: string; hazards: unknown[] }[] }).servers;
      assert.deepEqual(rows.find((r) => r.server === 'fix')?.hazards, [], 'attributed progress is not a hazard');
    });
  }
});

describe('cancellation propagates to the upstream call', () => {
  let gw: RunningGateway;
  let marker: string;
  before(async () => {
    const { tempDir } = await import('../helpers/gateway.js');
    marker = `${tempDir('marker')}/sleep.log`;
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--marker", "${marker}"] } }
lanes:
  a: { servers: [fix] }
`);
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

describe("a legacy lane answers its upstream's sampling request", () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(`${policyHead()}
${fixtureTwoLanes()}`);
  });
  after(async () => gw.stop());

  it("the request arrives on the call's SSE stream; the answer completes the call; another lane cannot answer it", async () => {
    const open = async (lane: string) => {
      return legacySession(gw.url, await gw.token(lane), { sampling: {} });
    };
    const ha = await open('a');
    const hb = await open('b');
    const res = await fetch(gw.url, {
      method: 'POST',
      headers: ha,
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'fix_ask', arguments: {} } }),
    });
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const nextMessage = sseMessages(res);
    const ask = await nextMessage();
    assert.equal(ask.method, 'sampling/createMessage');
    assert.match(String(ask.id), /^lg-/);
    const answer = {
      jsonrpc: '2.0',
      id: ask.id,
      result: { role: 'assistant', model: 'test', content: { type: 'text', text: 'forty-two' } },
    };
    const stolen = await fetch(gw.url, {
      method: 'POST',
      headers: hb,
      body: JSON.stringify({ ...answer, result: { ...answer.result, content: { type: 'text', text: 'from b' } } }),
    });
    assert.equal(stolen.status, 202, 'accepted as a notification-like post, but it answers nothing');
    const ok = await fetch(gw.url, { method: 'POST', headers: ha, body: JSON.stringify(answer) });
    assert.equal(ok.status, 202);
    const final = await nextMessage();
    assert.equal(final.id, 9);
    assert.match(JSON.stringify(final.result), /forty-two/);
    assert.doesNotMatch(JSON.stringify(final.result), /from b/);
  });
});
