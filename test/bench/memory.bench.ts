/**
 * npm run bench:memory: resident memory of the front and a host, idle and under a realistic load:
 * 100 lanes connected (a handshake-era session and its GET stream each) with 1,000 tools in each
 * lane's catalog (10 servers of 100 tools in one shared domain), every catalog listed. Bare Node's
 * figure is measured in the same run, as the baseline.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { FIXTURE, policyHead, startGateway } from '../helpers/gateway.js';
import { legacySession } from '../helpers/mcp.js';

const LANES = Number(process.env.BENCH_LANES ?? 100);
const SERVERS = Number(process.env.BENCH_SERVERS ?? 10);
const TOOLS_EACH = 100;
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 10000);

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
/**
 * Unique memory (USS): the pages only this process maps. The node binary's pages are shared by
 * every node process on the host (front, hosts, node servers), so a host's USS is what one more
 * host really adds; RSS counts the shared pages again in each process.
 */
const ussMb = (pid: number): number => {
  const s = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`\\n${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return (kb('Private_Clean') + kb('Private_Dirty')) / 1024;
};
type Mem = { rss: number; uss: number };
const memOf = (pid: number): Mem => ({ rss: rssMb(pid), uss: ussMb(pid) });
const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const hostOf = (front: number): number | undefined =>
  childrenOf(front).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('host/entry.js'));
const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const bareNode = async (): Promise<Mem> => {
  const p = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'], { stdio: 'ignore' });
  await settle(1500);
  const mb = memOf(p.pid ?? 0);
  p.kill();
  return mb;
};

/** A lane as a client keeps it: a session, its GET stream open, its catalog listed. */
const connect = async (url: string, token: string, held: AbortController): Promise<number> => {
  const sh = await legacySession(url, token);
  void fetch(url, { method: 'GET', headers: sh, signal: held.signal }).catch(() => undefined);
  const list = await fetch(url, { method: 'POST', headers: sh, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
  const j = (await list.json()) as { result?: { tools?: unknown[] } };
  return j.result?.tools?.length ?? 0;
};

const idle = async (): Promise<{ front: Mem; host: Mem }> => {
  const gw = await startGateway(
    `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  one: { servers: [fix] }
`,
    { env: { LANEGATE_LOG_LEVEL: 'warn' } },
  );
  try {
    const held = new AbortController();
    await connect(gw.url, await gw.token('one'), held);
    held.abort();
    await settle(3000);
    return { front: memOf(gw.pid), host: memOf(hostOf(gw.pid) ?? 0) };
  } finally {
    await gw.stop();
  }
};

const loaded = async (): Promise<{ front: Mem; host: Mem; tools: number }> => {
  const names = Array.from({ length: SERVERS }, (_, i) => `s${i}`);
  const servers = names
    .map(
      (n) =>
        `  ${n}: { prefix: ${n}, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--name", "${n}", "--extra-tools", "${TOOLS_EACH - 13}"] } }`,
    )
    .join('\n');
  const lanes = Array.from({ length: LANES }, (_, i) => `  l${i}: { servers: [${names.join(', ')}] }`).join('\n');
  const gw = await startGateway(`${policyHead()}\ntrustDomains: { public: { kind: shared } }\nservers:\n${servers}\nlanes:\n${lanes}\n`, {
    env: { LANEGATE_LOG_LEVEL: 'warn' },
  });
  const held = new AbortController();
  try {
    let tools = 0;
    for (let i = 0; i < LANES; i += 1) tools = await connect(gw.url, await gw.token(`l${i}`), held);
    // Idle long enough for V8's memory reducer to return what the listings left behind.
    await settle(SETTLE_MS);
    return { front: memOf(gw.pid), host: memOf(hostOf(gw.pid) ?? 0), tools };
  } finally {
    held.abort();
    await gw.stop();
  }
};

const bare = await bareNode();
const i = await idle();
const l = await loaded();
const f = (m: Mem): string => `${m.rss.toFixed(1).padStart(6)} MB ${m.uss.toFixed(1).padStart(6)} MB`;
console.log('\nmemory, this machine, one run: RSS, and USS (pages no other process shares)\n');
console.log(`                                                 RSS       USS`);
console.log(`bare node                                   ${f(bare)}`);
console.log(
  `front, idle                                 ${f(i.front)}   (goal: RSS <= 60 MB; ${(i.front.rss - bare.rss).toFixed(1)} MB over bare node)`,
);
console.log(
  `host, idle (one child)                      ${f(i.host)}   (goal: RSS <= 50 MB; ${(i.host.rss - bare.rss).toFixed(1)} MB over bare node)`,
);
console.log(`front, ${LANES} lanes connected, ${l.tools} tools each ${f(l.front)}   (goal: RSS <= 100 MB)`);
console.log(`the shared host of those lanes (${SERVERS} children) ${f(l.host)}`);
