/**
 * What the audit trail costs a call: two gateways, the same policy and upstream (the fixture's
 * echo), one with gateway.audit on and one with it off, measured in alternating rounds so the
 * load of a shared machine falls on both alike. Reports the front's CPU time per call over all
 * rounds (from /proc: the figure least moved by other processes), and the medians over rounds of
 * p50 latency at c=1 and throughput at c=16, each as on/off. Part of `npm run bench`; alone:
 *   npm run build && node --no-warnings --import tsx test/bench/audit-cost.ts
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { agent, type Call, httpPost, MODERN_META, run } from './paths.js';
import { auditFiles, readAudit } from '../../src/audit/read.js';

const ROUNDS = Number(process.env.BENCH_AUDIT_ROUNDS ?? 12);
const N_C1 = 500;
const N_C16 = 3000;

/** The process's user+system CPU time in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

const policy = (audit: boolean): string => `${policyHead(audit ? '' : '  audit: { enabled: false }')}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  bench: { servers: [fix] }
`;

const caller = async (gw: RunningGateway): Promise<Call> => {
  const token = await gw.token('bench');
  const url = new URL(gw.url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'fix_echo', arguments: { text: 'hi' }, _meta: MODERN_META },
  });
  const headers = {
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'fix_echo',
  };
  return async () => {
    const r = await httpPost(url, body, headers);
    if (!r.includes('"hi"')) throw new Error(`unexpected ${r}`);
  };
};

export const auditCost = async (): Promise<string[]> => {
  const on = await startGateway(policy(true), { env: { LANEGATE_LOG_LEVEL: 'warn' } });
  const off = await startGateway(policy(false), { env: { LANEGATE_LOG_LEVEL: 'warn' } });
  try {
    const calls = { on: await caller(on), off: await caller(off) };
    const gws = { on, off };
    const cpu = { on: 0, off: 0 };
    const n = { on: 0, off: 0 };
    const p50: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const rps: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const k of r % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        const before = cpuMs(gws[k].pid);
        const s1 = await run(calls[k], N_C1, 1, r === 0 ? 200 : 20);
        const s16 = await run(calls[k], N_C16, 16, 0);
        cpu[k] += cpuMs(gws[k].pid) - before;
        n[k] += N_C1 + N_C16 + (r === 0 ? 200 : 20);
        p50[k].push(s1.p50);
        rps[k].push(s16.rps);
      }
    }
    // Every call of the audited gateway left its record (written within the flush interval).
    await new Promise((res) => setTimeout(res, 500));
    const read = readAudit(path.join(on.stateDir, 'audit'));
    const written = read.records.length;
    const f = (x: number): string => x.toFixed(3);
    const perCall = { on: (cpu.on * 1000) / n.on, off: (cpu.off * 1000) / n.off };
    return [
      `\naudit trail cost: ${ROUNDS} alternating rounds of ${N_C1} calls at c=1 and ${N_C16} at c=16 (fixture echo, 2026-07-28), medians`,
      `  front CPU per call   on ${perCall.on.toFixed(1)} µs   off ${perCall.off.toFixed(1)} µs   on/off ${(perCall.on / perCall.off).toFixed(3)}x`,
      `  p50 at c=1           on ${f(median(p50.on))} ms   off ${f(median(p50.off))} ms   on/off ${(median(p50.on) / median(p50.off)).toFixed(3)}x`,
      `  throughput at c=16   on ${median(rps.on).toFixed(0)}/s   off ${median(rps.off).toFixed(0)}/s   on/off ${(median(rps.on) / median(rps.off)).toFixed(3)}x`,
      `  records written: ${written} of ${n.on} calls, in ${auditFiles(path.join(on.stateDir, 'audit')).length} files (rotated at 10 MiB); ${read.problems.length} damaged lines`,
    ];
  } finally {
    await on.stop();
    await off.stop();
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const l of await auditCost()) console.log(l);
  agent.destroy();
}
