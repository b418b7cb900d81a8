import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { EVERYTHING, FIXTURE, operatorApi, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { MODERN_META, modernCall, send } from '../helpers/http.js';
import { rssOf, unreadPost } from '../helpers/unread.js';
import { sleep } from '../helpers/procs.js';

/**
 * Limits count bytes (issue 19): one lane pulling large answers it never reads cannot run the
 * front out of memory or stall the other lane, and an answer past gateway.limits.resultBytes is
 * refused at once by name. Real gateway, real host, real fixture and server-everything children.
 */
const POLICY = `${policyHead('  limits: { stalledSendSeconds: 5 }')}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--big"] } }
  every: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
lanes:
  a: { servers: [fix, every] }
  b: { servers: [fix, every] }
`;

const agent = new Agent({ keepAlive: true, maxSockets: 32 });
const FRONT_ARGS = process.env.FRONT_ARGS ? process.env.FRONT_ARGS.split(' ') : [];

describe('byte limits: answers are bounded by bytes, not by count', () => {
  let gw: RunningGateway;
  /** A gateway of its own for the 4 MB flood: its front's growth is measured from a fresh start, not after the 24 MB flood. */
  let fresh: RunningGateway | undefined;
  let ta: string;
  let tb: string;
  let url: URL;
  const call = async (token: string, name: string, args: Record<string, unknown>, id = 1, at = url) => {
    const c = modernCall(token, id, name, args);
    const r = await send(at, c.body, c.headers, agent);
    return {
      status: r.status,
      body: JSON.parse(r.text || '{}') as {
        result?: { content?: { text?: string }[] };
        error?: { code: number; message: string; data?: Record<string, unknown> };
      },
    };
  };

  before(async () => {
    gw = await startGateway(POLICY, { nodeArgs: FRONT_ARGS });
    ta = await gw.token('a');
    tb = await gw.token('b');
    url = new URL(gw.url);
  });
  after(async () => {
    agent.destroy();
    await Promise.all([gw?.stop(), fresh?.stop()]);
  });

  it('refuses an answer over resultBytes at once, naming the setting, the server and the size; the child goes on serving', async (t) => {
    await call(ta, 'fix_echo', { text: 'warm' }); // the child is started: what is timed is the answer alone
    const t0 = Date.now();
    const r = await call(ta, 'fix_big', { n: 150_000_000 });
    const ms = Date.now() - t0;
    assert.equal(r.body.error?.code, -32004, JSON.stringify(r.body).slice(0, 300));
    assert.match(r.body.error?.message ?? '', /gateway\.limits\.resultBytes/);
    assert.match(r.body.error?.message ?? '', /server "fix"/);
    assert.equal(r.body.error?.data?.limit, 'gateway.limits.resultBytes');
    assert.ok(Number(r.body.error?.data?.bytes) > 32 * 1024 * 1024);
    t.diagnostic(`150 MB answer refused after ${ms} ms: ${r.body.error?.message}`);
    assert.ok(ms < 2000, `refused after ${ms} ms`);
    // The warn line names the server and the limit; the same child answers the next call.
    assert.match(gw.stderr(), /"level":"?(warn|40)"?[^\n]*upstream_limit[^\n]*"server":"fix"/);
    const ok = await call(ta, 'fix_echo', { text: 'after' });
    assert.equal(ok.body.result?.content?.[0]?.text, 'after');
    // An answer just under the bound is delivered whole.
    const big = await call(ta, 'fix_big', { n: 8_000_000 });
    assert.equal(big.body.result?.content?.[0]?.text?.length, 8_000_000);
  });

  it('a published SDK server (server-everything) answers a 3.9 MB echo whole through the sliced link and the paced writer', async () => {
    const small = await call(tb, 'every_echo', { message: 'x'.repeat(100) });
    assert.match(small.body.result?.content?.[0]?.text ?? '', /x{100}/);
    // server-everything echoes what it is sent; a 3.9 MB echo is under 32 MiB and passes whole.
    const r = await call(tb, 'every_echo', { message: 'y'.repeat(3_900_000) });
    assert.match(r.body.result?.content?.[0]?.text ?? '', /y{3900000}/);
  });

  it('44 unread 24 MB answers leave the front alive and under 400 MB, and the other lane is served throughout', async (t) => {
    const front = gw.pid;
    const held: ReturnType<typeof unreadPost>[] = [];
    let quietOk = 0;
    let quietFailed = 0;
    let flooding = true;
    const quiet = (async () => {
      for (let i = 0; flooding && i < 100_000; i += 1) {
        const r = await call(tb, 'fix_echo', { text: `q${i}` }, i);
        if (r.body.result?.content?.[0]?.text === `q${i}`) quietOk += 1;
        else quietFailed += 1;
        await sleep(20);
      }
    })();
    // All at once, as an attacker would: none of them is read past its status line.
    for (let i = 0; i < 44; i += 1) {
      const c = modernCall(ta, i, 'fix_big', { n: 24_000_000 });
      held.push(unreadPost(url, c.headers, c.body));
    }
    await sleep(8000);
    // -1: no answer yet (waiting for the lane's turn: its unread answers weigh its next calls).
    const statuses = await Promise.all(held.map((h) => Promise.race([h.status, sleep(10).then(() => -1)])));
    await sleep(500);
    // Its own cancellations still go through at once: only requests wait behind its unread answers.
    const c0 = Date.now();
    const cancel = await send(
      url,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: MODERN_META } }),
      { authorization: `Bearer ${ta}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'notifications/cancelled' },
      agent,
    );
    assert.equal(cancel.status, 202);
    assert.ok(Date.now() - c0 < 1000, `the cancellation waited ${Date.now() - c0} ms`);
    const mem = rssOf(front);
    flooding = false;
    await quiet;
    for (const h of held) h.socket.destroy();
    const count = (s: number) => statuses.filter((x) => x === s).length;
    t.diagnostic(
      `front peak RSS ${mem.peak.toFixed(0)} MB; after 8 s: 200 x${count(200)}, 429 x${count(429)}, waiting x${count(-1)}; quiet lane ${quietOk} ok, ${quietFailed} failed`,
    );
    assert.ok(mem.peak < 400, `front peak RSS ${mem.peak.toFixed(0)} MB`);
    assert.equal(quietFailed, 0);
    assert.ok(quietOk > 10, `quiet lane answered ${quietOk} times`);
    // A few answers were held for their clients (the lane's byte budget, and its turns weighed by
    // the 24 MB answers it has been getting); the rest were refused by name or wait their turn.
    assert.ok(count(200) >= 1 && count(200) <= 6, statuses.join(','));
    assert.equal(count(200) + count(429) + count(-1), 44, statuses.join(','));
    // Once its clients are gone (their held answers let go as the sockets close), the lane is served again.
    let again = await call(ta, 'fix_echo', { text: 'still here' });
    for (let i = 0; i < 30 && again.body.result?.content?.[0]?.text !== 'still here'; i += 1) {
      await sleep(100);
      again = await call(ta, 'fix_echo', { text: 'still here' }, 9000 + i);
    }
    assert.equal(again.body.result?.content?.[0]?.text, 'still here');
  });

  it('64 unread 4 MB echoes: front and host each grow by less than 200 MB, and the other lane is served', async (t) => {
    // Started here, not beside the first: its start would load the machine while the others time their answers.
    fresh = await startGateway(POLICY, { nodeArgs: FRONT_ARGS });
    const at = new URL(fresh.url);
    const [fa, fb] = [await fresh.token('a'), await fresh.token('b')];
    // Both lanes' children started (the growth measured is the flood's, not a child's start).
    assert.equal((await call(fa, 'fix_echo', { text: 'warm' }, 1, at)).body.result?.content?.[0]?.text, 'warm');
    assert.equal((await call(fb, 'fix_echo', { text: 'warm' }, 1, at)).body.result?.content?.[0]?.text, 'warm');
    const procs = (await operatorApi(fresh, '/api/processes')) as { hosts: Record<string, { pid: number }> };
    const hostPid = Object.values(procs.hosts)[0]?.pid ?? 0;
    assert.ok(hostPid > 0);
    const before = { front: rssOf(fresh.pid).rss, host: rssOf(hostPid).rss };
    let peakFront = before.front;
    let peakHost = before.host;
    const held: ReturnType<typeof unreadPost>[] = [];
    const payload = 'z'.repeat(3_900_000);
    for (let i = 0; i < 64; i += 1) {
      const c = modernCall(fa, 1000 + i, 'fix_echo', { text: payload });
      const h = unreadPost(at, c.headers, c.body);
      held.push(h);
    }
    let quietFailed = 0;
    for (let i = 0; i < 60; i += 1) {
      const r = await call(fb, 'fix_echo', { text: `p${i}` }, 5000 + i, at);
      if (r.body.result?.content?.[0]?.text !== `p${i}`) quietFailed += 1;
      peakFront = Math.max(peakFront, rssOf(fresh.pid).rss);
      peakHost = Math.max(peakHost, rssOf(hostPid).rss);
      await sleep(50);
    }
    // The kernel's high-water marks too: a peak between two samples counts.
    peakFront = Math.max(peakFront, rssOf(fresh.pid).peak);
    peakHost = Math.max(peakHost, rssOf(hostPid).peak);
    for (const h of held) h.socket.destroy();
    t.diagnostic(
      `front +${(peakFront - before.front).toFixed(0)} MB, host +${(peakHost - before.host).toFixed(0)} MB; quiet lane failed ${quietFailed}/60`,
    );
    assert.equal(quietFailed, 0);
    assert.ok(peakFront - before.front < 200, `front grew ${(peakFront - before.front).toFixed(0)} MB`);
    assert.ok(peakHost - before.host < 200, `host grew ${(peakHost - before.host).toFixed(0)} MB`);
  });
});
