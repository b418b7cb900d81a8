/**
 * npm run bench:fairness — one lane floods, another keeps its latency.
 * The quiet lane makes sequential tools/call (echo) requests: first alone, then while the flood
 * lane opens many sessions, holds many GET streams, keeps many slow calls in flight and hammers
 * echo at concurrency 16 (each lane has its own upstream child: nothing here is shared but the
 * front and the host). Prints the quiet lane's p50/p99 alone and under the flood, as ratios.
 */
import { Agent, request } from 'node:http';
import { modernCall, send } from '../helpers/http.js';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { FIXTURE, operatorApi, policyHead, startGateway } from '../helpers/gateway.js';
import { rssOf, unreadPost } from '../helpers/unread.js';

const N = Number(process.env.BENCH_N ?? 2000);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const post = (url: URL, c: { headers: Record<string, string>; body: string }) => send(url, c.body, c.headers, agent);

const quietRun = async (url: URL, token: string): Promise<{ p50: number; p99: number; errors: number }> => {
  const lat: number[] = [];
  let errors = 0;
  for (let i = 0; i < N; i += 1) {
    const t = process.hrtime.bigint();
    const r = await post(url, modernCall(token, i, 'fix_echo', { text: 'q' }));
    lat.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 200) errors += 1;
  }
  lat.sort((a, b) => a - b);
  return { p50: lat[Math.floor(N * 0.5)] ?? 0, p99: lat[Math.floor(N * 0.99)] ?? 0, errors };
};

/** The flooding lane: many sessions and GET streams, 48 slow calls and 16 fast loops, until SIGTERM. */
const floodUntilKilled = async (url: URL, tf: string): Promise<void> => {
  let flooding = true;
  const counts = { sessions: 0, streams: 0, slow: 0, fast: 0, refused429: 0 };
  const floodTasks: Promise<unknown>[] = [];
  // Many sessions, each with a GET stream held open (until the per-lane stream limit says no).
  const sessions: string[] = [];
  for (let i = 0; i < 300; i += 1) {
    const r = await new Promise<string>((resolve) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tf}` },
        },
        (res) => {
          res.resume();
          resolve(String(res.headers['mcp-session-id'] ?? ''));
        },
      );
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
        }),
      );
    });
    if (r) sessions.push(r);
  }
  counts.sessions = sessions.length;
  const streamReqs = sessions.slice(0, 100).map((sid) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'GET',
        headers: { authorization: `Bearer ${tf}`, accept: 'text/event-stream', 'mcp-session-id': sid },
      },
      (res) => {
        if (res.statusCode === 200) counts.streams += 1;
        else counts.refused429 += res.statusCode === 429 ? 1 : 0;
        res.resume();
      },
    );
    req.on('error', () => undefined);
    req.end();
    return req;
  });
  // Slow calls kept in flight, and a tight loop of fast ones at concurrency 16.
  for (let k = 0; k < 48; k += 1)
    floodTasks.push(
      (async () => {
        for (let i = 0; flooding && i < 10_000; i += 1) {
          const r = await post(url, modernCall(tf, i, 'fix_sleep', { ms: 2000 }));
          if (r.status === 429) {
            counts.refused429 += 1;
            await new Promise((res) => setTimeout(res, 50));
          } else counts.slow += 1;
        }
      })(),
    );
  for (let k = 0; k < 16; k += 1)
    floodTasks.push(
      (async () => {
        for (let i = 0; flooding && i < 1_000_000; i += 1) {
          const r = await post(url, modernCall(tf, i, 'fix_echo', { text: 'f' }));
          if (r.status === 429) {
            counts.refused429 += 1;
            await new Promise((res) => setTimeout(res, 5));
          } else counts.fast += 1;
        }
      })(),
    );

  const report = (): void => {
    flooding = false;
    for (const s of streamReqs) s.destroy();
    process.stdout.write(
      `${counts.sessions} sessions, ${counts.streams} GET streams held, ${counts.slow} slow calls, ${counts.fast} fast calls, ${counts.refused429} refused with 429\n`,
      () => process.exit(0),
    );
  };
  process.on('SIGTERM', report);
  await Promise.all(floodTasks);
};

/**
 * The byte flood (issue 19): 64 connections each send a ~3.9 MB echo and never read its answer
 * past the status line; each is dropped a second after its status and opened again, until SIGTERM.
 */
const bytesFloodUntilKilled = async (url: URL, tf: string): Promise<void> => {
  let flooding = true;
  const counts: Record<string, number> = {};
  const payload = 'z'.repeat(3_900_000);
  const open = new Set<{ socket: { destroy: () => void } }>();
  const slot = async (k: number): Promise<void> => {
    for (let i = 0; flooding && i < 100_000; i += 1) {
      const c = modernCall(tf, k * 100_000 + i, 'fix_echo', { text: payload });
      const h = unreadPost(url, c.headers, c.body);
      open.add(h);
      const status = await h.status;
      counts[status] = (counts[status] ?? 0) + 1;
      await new Promise((r) => setTimeout(r, 1000));
      h.socket.destroy();
      open.delete(h);
    }
  };
  const tasks = Array.from({ length: 64 }, (_, k) => slot(k));
  process.on('SIGTERM', () => {
    flooding = false;
    for (const h of open) h.socket.destroy();
    const line = Object.entries(counts)
      .map(([s, n]) => `${n} x ${s === '0' ? 'closed' : `HTTP ${s}`}`)
      .join(', ');
    process.stdout.write(`unread ~3.9 MB echoes: ${line}\n`, () => process.exit(0));
  });
  await Promise.all(tasks);
};

/** The quiet lane alone, then beside `flood` (a mode of this file run as its own process). */
const caseRun = async (
  label: string,
  gw: { url: string; pid: number },
  tq: string,
  tf: string,
  mode: string,
  hostPid: () => Promise<number>,
): Promise<void> => {
  const url = new URL(gw.url);
  const alone = await quietRun(url, tq);
  const hp = await hostPid();
  const before = { front: rssOf(gw.pid).rss, host: hp ? rssOf(hp).rss : 0 };
  const flood = execa(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), mode, gw.url, tf], {
    reject: false,
    buffer: true,
  });
  await new Promise((r) => setTimeout(r, 2500));
  let peak = { ...before };
  const sampler = setInterval(() => {
    peak = { front: Math.max(peak.front, rssOf(gw.pid).rss), host: hp ? Math.max(peak.host, rssOf(hp).rss) : 0 };
  }, 100);
  const under = await quietRun(url, tq);
  clearInterval(sampler);
  flood.kill('SIGTERM');
  const counts = String((await flood).stdout).trim();
  await new Promise((r) => setTimeout(r, 3000));
  const after = await quietRun(url, tq);
  const base = { p50: Math.min(alone.p50, after.p50), p99: Math.min(alone.p99, after.p99) };
  const f = (x: number): string => x.toFixed(2).padStart(8);
  process.stdout.write(`\nfairness, ${label}: the quiet lane's sequential tools/call, ${N} calls each (ms)\n`);
  process.stdout.write('| quiet lane        |      p50 |      p99 | errors |\n|---|---|---|---|\n');
  process.stdout.write(`| alone, before     | ${f(alone.p50)} | ${f(alone.p99)} | ${alone.errors} |\n`);
  process.stdout.write(`| alone, after      | ${f(after.p50)} | ${f(after.p99)} | ${after.errors} |\n`);
  process.stdout.write(`| while flood runs  | ${f(under.p50)} | ${f(under.p99)} | ${under.errors} |\n`);
  process.stdout.write(`| ratio to the better alone | ${f(under.p50 / base.p50)}x | ${f(under.p99 / base.p99)}x | goal p99 <= 2x |\n`);
  process.stdout.write(
    `RSS growth during the flood: front +${(peak.front - before.front).toFixed(0)} MB, host +${(peak.host - before.host).toFixed(0)} MB (goal < 200 MB each)\n`,
  );
  process.stdout.write(`flood lane meanwhile (its own process): ${counts}\n`);
};

const main = async (): Promise<void> => {
  const gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  quiet: { servers: [fix] }
  flood: { servers: [fix] }
`);
  const url = new URL(gw.url);
  const tq = await gw.token('quiet');
  const tf = await gw.token('flood');
  try {
    for (let i = 0; i < 1500; i += 1) await post(url, modernCall(tq, i, 'fix_echo', { text: 'w' }));
    for (let i = 0; i < 300; i += 1) await post(url, modernCall(tf, i, 'fix_echo', { text: 'w' }));
    const hostPid = async (): Promise<number> => {
      const p = (await operatorApi(gw, '/api/processes')) as { hosts: Record<string, { pid: number }> };
      return Object.values(p.hosts)[0]?.pid ?? 0;
    };
    const only = process.env.BENCH_CASE;
    if (!only || only === 'calls') await caseRun('a lane flooding with calls, sessions and streams', gw, tq, tf, '--flood', hostPid);
    if (!only || only === 'bytes') await caseRun('a lane pulling 64 unread ~3.9 MB answers', gw, tq, tf, '--bytes-flood', hostPid);
  } finally {
    await gw.stop();
  }
};

if (process.argv[2] === '--flood') await floodUntilKilled(new URL(process.argv[3] ?? ''), process.argv[4] ?? '');
else if (process.argv[2] === '--bytes-flood') await bytesFloodUntilKilled(new URL(process.argv[3] ?? ''), process.argv[4] ?? '');
else await main();
