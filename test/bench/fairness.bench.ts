/**
 * npm run bench:fairness — one lane floods, another keeps its latency.
 * The quiet lane makes sequential tools/call (echo) requests: first alone, then while the flood
 * lane opens many sessions, holds many GET streams, keeps many slow calls in flight and hammers
 * echo at concurrency 16 (each lane has its own upstream child: nothing here is shared but the
 * front and the host; the bench prints the placement to show it). Prints the quiet lane's p50/p99
 * alone and under the flood, as ratios. BENCH_CASE=bytes runs the byte flood (issue 19), and the
 * same flood against the floor bridge in the same run (floorCases); BENCH_CASE=bytes-lanegate only
 * lanegate's, BENCH_CASE=bytes-front the byte flood with the quiet lane on another host (what
 * the shared front alone costs it), BENCH_CASE=bytes-apart the byte flood through a second gateway
 * (nothing shared but the machine), BENCH_CASE=bytes-shared the byte flood with both lanes on ONE
 * shared child, BENCH_CASE=floor only the floors. BENCH_GATEWAY_NODE_ARGS
 * passes node flags to the gateway (e.g. `--cpu-prof --cpu-prof-dir=DIR`, which its hosts inherit).
 */

import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { FIXTURE, fixtureProbedPolicy, operatorApi, policyHead, startGateway } from '../helpers/gateway.js';
import { modernCall } from '../helpers/http.js';
import { agent, bytesFloodUntilKilled, caseRun, floorBridge, post } from './fairness-case.js';

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

/** The process ids of a process's children (Linux), for the floor bridge's child. */
const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

const SELF = fileURLToPath(import.meta.url);

/**
 * The byte flood's floors, in the same run: the same quiet lane and the same flood against the
 * one-hop floor bridge, (1) both through ONE bridge and its ONE child (everything shared, as a
 * gateway with a shared child would be), and (2) each through a bridge and child of its own
 * (nothing shared but the machine's two cores: lanegate's placement here, without lanegate).
 */
const floorCases = async (): Promise<void> => {
  const one = await floorBridge();
  try {
    const t = { url: one.url, token: 'none', tool: 'echo' };
    await caseRun(
      'FLOOR: one floor bridge and ONE child for both lanes',
      SELF,
      {
        quiet: t,
        flood: t,
        pids: async () => ({ bridge: one.pid, child: childrenOf(one.pid)[0] ?? 0 }),
      },
      '--bytes-flood',
    );
  } finally {
    one.stop();
  }
  const q = await floorBridge();
  const fl = await floorBridge();
  try {
    await caseRun(
      'FLOOR: a floor bridge and a child per lane',
      SELF,
      {
        quiet: { url: q.url, token: 'none', tool: 'echo' },
        flood: { url: fl.url, token: 'none', tool: 'echo' },
        pids: async () => ({ 'quiet bridge': q.pid, 'flood bridge': fl.pid }),
      },
      '--bytes-flood',
    );
  } finally {
    q.stop();
    fl.stop();
  }
};

/** What /api/processes says of a gateway's hosts and children. */
type Processes = {
  hosts: Record<string, { pid: number; children: { server: string; placement: string; lane?: string; lanes?: string[]; pid: number }[] }>;
};

/**
 * The byte flood with BOTH lanes on ONE shared child (BENCH_CASE=bytes-shared): the fixture with a
 * demonstration, shared once the gateway's own measurement at start has passed. The fair shares
 * stop at the host: this is what a shared child's own queue costs the quiet lane.
 */
const sharedChildCase = async (): Promise<void> => {
  const gw = await startGateway(fixtureProbedPolicy(['quiet', 'flood']));
  try {
    const url = new URL(gw.url);
    const tq = await gw.token('quiet');
    const tf = await gw.token('flood');
    let shared: Processes['hosts'][string]['children'][number] | undefined;
    let hostPid = 0;
    for (let i = 0; i < 600 && !shared?.lanes?.includes('flood'); i += 1) {
      await post(url, modernCall(tq, i, 'fix_echo', { text: 'w' }));
      await post(url, modernCall(tf, i, 'fix_echo', { text: 'w' }));
      const p = (await operatorApi(gw, '/api/processes')) as Processes;
      for (const h of Object.values(p.hosts)) {
        const c = h.children.find((x) => x.placement === 'shared' && x.lanes?.includes('quiet'));
        if (c) [shared, hostPid] = [c, h.pid];
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!shared?.lanes?.includes('flood')) throw new Error('the fixture was not shared by both lanes within 60 s');
    process.stdout.write(`placement: host pid ${hostPid}: fix shared by ${shared.lanes.join(', ')} (pid ${shared.pid})\n`);
    for (let i = 0; i < 1500; i += 1) await post(url, modernCall(tq, 10_000 + i, 'fix_echo', { text: 'w' }));
    await caseRun(
      'the byte flood with BOTH lanes on ONE shared child',
      SELF,
      {
        quiet: { url: gw.url, token: tq, tool: 'fix_echo' },
        flood: { url: gw.url, token: tf, tool: 'fix_echo' },
        pids: async () => ({ front: gw.pid, host: hostPid }),
      },
      '--bytes-flood',
    );
  } finally {
    await gw.stop();
  }
};

const main = async (): Promise<void> => {
  if (process.env.BENCH_CASE === 'bytes-shared') return sharedChildCase();
  if (process.env.BENCH_CASE === 'floor') return floorCases();
  const gw = await startGateway(
    `${policyHead()}
trustDomains: { public: { kind: shared }, other: { kind: shared } }
servers:
  fix2: { prefix: fix2, domain: other, stdio: { command: node, args: ["${FIXTURE}"] } }
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  quiet: { servers: [fix, fix2] }
  flood: { servers: [fix] }
`,
    { nodeArgs: (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean) },
  );
  const url = new URL(gw.url);
  const tq = await gw.token('quiet');
  const tf = await gw.token('flood');
  try {
    for (let i = 0; i < 1500; i += 1) await post(url, modernCall(tq, i, 'fix_echo', { text: 'w' }));
    for (let i = 0; i < 300; i += 1) await post(url, modernCall(tf, i, 'fix_echo', { text: 'w' }));
    // fix has no demonstration, so it is dedicated: each lane has a child of its own, in one host.
    const p = (await operatorApi(gw, '/api/processes')) as {
      hosts: Record<string, { pid: number; children: { server: string; placement: string; lane?: string; pid: number }[] }>;
    };
    const hosts = Object.entries(p.hosts);
    process.stdout.write(
      `placement: ${hosts.map(([k, h]) => `host ${k} (pid ${h.pid}): ${h.children.map((c) => `${c.server} ${c.placement} for ${c.lane ?? 'all lanes'} (pid ${c.pid})`).join(', ')}`).join('; ')}\n`,
    );
    const hostPid = hosts[0]?.[1].pid ?? 0;
    const target = (tool: string, quietTool = 'fix_echo') => ({
      quiet: { url: gw.url, token: tq, tool: quietTool },
      flood: { url: gw.url, token: tf, tool },
      pids: async () => ({ front: gw.pid, host: hostPid }),
    });
    const only = process.env.BENCH_CASE;
    if (!only || only === 'calls') await caseRun('a lane flooding with calls, sessions and streams', SELF, target('fix_echo'), '--flood');
    if (!only || only === 'bytes' || only === 'bytes-lanegate')
      await caseRun('a lane pulling 64 unread ~3.9 MB answers (one host, a child per lane)', SELF, target('fix_echo'), '--bytes-flood');
    // The same flood with the quiet lane on another host: what the shared front alone costs it.
    if (only === 'bytes-front')
      await caseRun(
        'the byte flood, the quiet lane on ANOTHER host (only the front shared)',
        SELF,
        target('fix_echo', 'fix2_echo'),
        '--bytes-flood',
      );
    // The same flood through a SECOND gateway (its own front, host and child): nothing shared with
    // the quiet lane but the machine's two cores. What the flood's load alone costs the quiet lane.
    if (only === 'bytes-apart') {
      const apart = await startGateway(readFileSync(gw.policyFile, 'utf8'));
      try {
        await caseRun(
          'the byte flood through ANOTHER gateway (nothing shared but the machine)',
          SELF,
          { ...target('fix_echo'), flood: { url: apart.url, token: await apart.token('flood'), tool: 'fix_echo' } },
          '--bytes-flood',
        );
      } finally {
        await apart.stop();
      }
    }
    if (!only || only === 'bytes') await floorCases();
  } finally {
    await gw.stop();
  }
};

const [mode, u, tok, tool] = process.argv.slice(2);
if (mode === '--flood') await floodUntilKilled(new URL(u ?? ''), tok ?? '');
else if (mode === '--bytes-flood') await bytesFloodUntilKilled(new URL(u ?? ''), tok ?? '', tool ?? 'fix_echo');
else await main();
