/**
 * npm run bench: tools/call latency and throughput, direct vs through lanegate, in one run.
 * First the floor: the same SDK v1 client (Streamable HTTP) and the same upstream
 * (server-everything's echo) through the cheapest one-hop bridge (floor-bridge.mjs) and through
 * lanegate, legacy era; then a lean HTTP client in the 2026-07-28 era through both. Ratios
 * lanegate/floor are the figures to read (absolute times drift between runs on shared machines).
 * Then the older paths:
 *   (a)  SDK v2 client → stdio upstream (the fixture server's echo)
 *   (a') lean JSON-RPC over the same child's pipes (the floor)
 *   (b)  lean HTTP client → lanegate front → host → the same upstream (modern era, JSON)
 *   (b') the same through a legacy session
 * Prints p50/p99 and calls/s at concurrency 1 and 16 (4 for the 256 KiB echo), and the ratios b/a.
 * The audit trail is on, as in production; LANEGATE_BENCH_AUDIT=off runs the same with it off.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURE, policyHead, ROOT, startGateway } from '../helpers/gateway.js';
import { execa } from 'execa';
import { LinePeer } from '../../src/rpc/peer.js';

import { auditCost } from './audit-cost.js';
import { agent, benchGateway, type Call, floorRows, httpPost, N1, N16, resent, run, type Stats } from './paths.js';

const main = async (): Promise<void> => {
  const rows: [string, Stats, Stats][] = [];
  const floor = await floorRows();
  rows.push(...floor);

  // (a) SDK client straight to stdio.
  const sdk = new Client({ name: 'bench', version: '1' });
  await sdk.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE] }));
  const a: Call = async () => {
    await sdk.callTool({ name: 'echo', arguments: { text: 'hi' } });
  };
  rows.push(['(a) SDK client → stdio', await run(a, N1, 1), await run(a, N16, 16)]);
  await sdk.close();

  // (a') lean JSON-RPC over the child's pipes.
  const child = execa(process.execPath, [FIXTURE], { stdin: 'pipe', stdout: 'pipe', buffer: false, reject: false });
  const peer = new LinePeer(child.stdout as never, child.stdin as never);
  await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } });
  const a2: Call = async () => {
    await peer.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
  };
  rows.push(["(a') lean client → stdio", await run(a2, N1, 1), await run(a2, N16, 16)]);
  child.kill();

  // (b) through lanegate.
  const gw = await startGateway(
    `${policyHead(benchGateway())}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  bench: { servers: [fix] }
`,
    { env: { LANEGATE_LOG_LEVEL: 'warn' } },
  );
  try {
    const token = await gw.token('bench');
    const url = new URL(gw.url);
    const auth = { authorization: `Bearer ${token}` };
    const modernBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'fix_echo',
        arguments: { text: 'hi' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'b', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const modernHeaders = { ...auth, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'fix_echo' };
    const b: Call = async () => {
      const r = await httpPost(url, modernBody, modernHeaders);
      if (!r.includes('"hi"')) throw new Error(`unexpected ${r}`);
    };
    rows.push(['(b) lean HTTP → lanegate (modern)', await run(b, N1, 1), await run(b, N16, 16)]);

    const init = await fetch(gw.url, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
      }),
    });
    const sid = init.headers.get('mcp-session-id') ?? '';
    // A new id per call: a session's ids are unique (lanegate refuses one in use by a call in flight).
    let next = 1;
    const b2: Call = async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: next++,
        method: 'tools/call',
        params: { name: 'fix_echo', arguments: { text: 'hi' } },
      });
      await httpPost(url, body, { ...auth, 'mcp-session-id': sid });
    };
    rows.push(["(b') lean HTTP → lanegate (legacy session)", await run(b2, N1, 1), await run(b2, N16, 16)]);
  } finally {
    await gw.stop();
  }

  // Context cost: tools/list of the default policy's lanes, full catalog vs catalog: search.
  const policiesDir = path.join(ROOT, 'policies');
  const defaultPolicy = readFileSync(path.join(policiesDir, 'default.yaml'), 'utf8')
    .replaceAll('{policyDir}', policiesDir)
    .replace(/stateDir: .*/, 'stateDir: ./state')
    .replace(/^lanes:\n/m, 'lanes:\n  research-search:\n    servers: [everything, memory]\n    catalog: search\n');
  const dgw = await startGateway(defaultPolicy, {
    env: { LANEGATE_LOG_LEVEL: 'warn' },
    secrets: { 'state/secrets/mailbox-alice-inbox.token': 'demo' },
  });
  const sizes: [string, number][] = [];
  try {
    for (const lane of ['research', 'research-search']) {
      const token = await dgw.token(lane);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      });
      const r = await httpPost(new URL(dgw.url), body, {
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      });
      sizes.push([lane, Buffer.byteLength(r)]);
    }
  } finally {
    await dgw.stop();
  }

  const f = (x: number): string => x.toFixed(3);
  console.log(`\ntools/call: latency in ms, throughput in calls/s (2 cores; same run; audit ${benchGateway() ? 'off' : 'on'})\n`);
  console.log('path                                          c=1 p50   c=1 p99   c=1 rps    c=16 p50  c=16 p99  c=16 rps');
  for (const [label, s1, s16] of rows) {
    console.log(
      `${label.padEnd(44)}  ${f(s1.p50).padStart(7)}   ${f(s1.p99).padStart(7)}  ${s1.rps.toFixed(0).padStart(7)}   ${f(s16.p50).padStart(7)}   ${f(s16.p99).padStart(7)}  ${s16.rps.toFixed(0).padStart(7)}`,
    );
  }
  for (const era of ['SDK v1 (legacy)', 'SDK v1, 256 KiB', 'lean (2026-07-28)', 'lean, 1 MB echo', 'lean, 8 MB echo']) {
    const F = floor.find((r) => r[0].startsWith('floor') && r[0].endsWith(era));
    const L = floor.find((r) => r[0].startsWith('lanegate') && r[0].endsWith(era));
    if (F && L) {
      const big = /KiB|MB/.test(era);
      console.log(
        `lanegate/floor, ${era.padEnd(18)}: p50 at c=1 ${(L[1].p50 / F[1].p50).toFixed(2)}x${big ? '' : ' (goal <= 1.25x)'}; +${f(L[1].p50 - F[1].p50)} ms; throughput at c=${era.includes('8 MB') ? 2 : big ? 4 : 16} ${(L[2].rps / F[2].rps).toFixed(2)}x${big ? '' : ' (goal >= 1.0x)'}`,
      );
    }
  }
  const byLabel = new Map(rows.map((r) => [r[0].slice(0, 4), r]));
  const A = byLabel.get('(a) ');
  const B = byLabel.get('(b) ');
  if (A && B) {
    console.log(
      `\nratio b/a: p50 at c=1 ${(B[1].p50 / A[1].p50).toFixed(2)}x (overhead ${f(B[1].p50 - A[1].p50)} ms); throughput at c=16 ${(B[2].rps / A[2].rps).toFixed(2)}x`,
    );
  }
  console.log('\ntools/list for the default policy (lane research: everything + memory):');
  for (const [lane, bytes] of sizes) console.log(`  ${lane === 'research' ? 'catalog: full  ' : 'catalog: search'}  ${bytes} bytes`);
  // What recording costs: the same calls through a gateway with the audit trail on and one with it off.
  for (const l of await auditCost()) console.log(l);
  console.log(`\nrequests sent again after a pooled connection was found closed: ${resent.count} ${JSON.stringify(resent.codes)}`);
  agent.destroy();
};

await main();
