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
    // A pass that passes places the server shared live: no restart is needed for the lanes' calls to
    // reach one shared child (the first test checks they do).
    await waitFor(async () => !((await (await op('/api/measure')).json()) as { running: boolean }).running, 60_000, 300);
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
        assert.match(
          JSON.stringify(msgs.at(-1)?.result),
          /done with lgp-[0-9a-f-]+/,
          "the upstream saw a gateway-unique token, not the lane's",
        );
      }
      const rev = await op('/api/servers');
      const rows = ((await rev.json()) as { servers: { server: string; placement: string; hazards: unknown[] }[] }).servers;
      assert.deepEqual(rows.find((r) => r.server === 'fix')?.hazards, [], 'attributed progress is not a hazard');
    });
  }
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
