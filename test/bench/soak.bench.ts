/**
 * npm run bench:soak — 100 lanes × 1,000 calls each against the default server mix (server-everything,
 * measured and shared; server-memory, one child per lane), all lanes at once. Prints errors, calls/s
 * and the RSS of every process (front, hosts, children) at the start, the middle and the end.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { modernCall, send } from '../helpers/http.js';
import { everythingServer, MEMORY, measureThenRestart, operatorApi, policyHead, startGateway } from '../helpers/gateway.js';

const LANES = Number(process.env.SOAK_LANES ?? 100);
const CALLS = Number(process.env.SOAK_CALLS ?? 1000);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const call = async (url: URL, token: string, id: number, name: string, args: Record<string, unknown>): Promise<boolean> => {
  const c = modernCall(token, id, name, args);
  const r = await send(url, c.body, c.headers, agent);
  return r.status === 200 && !r.text.includes('"isError":true') && !r.text.includes('"error"');
};

const rssMb = (pid: number): number => {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);
  } catch {
    return 0;
  }
};

const snapshot = async (gw: { pid: number; url: string; operatorToken: string }, label: string): Promise<string> => {
  const p = (await operatorApi(gw as never, '/api/processes')) as {
    front: number;
    hosts: Record<string, { pid?: number; children: { server: string; placement: string; lane?: string; pid: number }[] }>;
  };
  const hosts = Object.entries(p.hosts);
  const children = hosts.flatMap(([, h]) => h.children);
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const byServer = (s: string) => children.filter((c) => c.server === s).map((c) => rssMb(c.pid));
  const every = byServer('everything');
  const mem = byServer('memory');
  return `| ${label.padEnd(6)} | ${String(rssMb(p.front)).padStart(5)} | ${hosts.map(([, h]) => rssMb(h.pid ?? 0)).join(', ')} | ${every.length} × ${every.length ? Math.round(sum(every) / every.length) : 0} | ${mem.length} × ${mem.length ? Math.round(sum(mem) / mem.length) : 0} (total ${sum(mem)}) |`;
};

const main = async (): Promise<void> => {
  const lanes = Array.from({ length: LANES }, (_, i) => `lane-${i}`);
  const policy = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
${everythingServer()}  memory:
    prefix: memory
    domain: public
    stdio: { command: node, args: ["${MEMORY}"], env: { MEMORY_FILE_PATH: "{stateDir}/memory/{lane}.jsonl" } }
lanes:
${lanes.map((l) => `  ${l}: { servers: [everything, memory] }`).join('\n')}
`;
  const gw = await measureThenRestart(await startGateway(policy));
  const url = new URL(gw.url);
  const tokens = await Promise.all(lanes.map((l) => gw.token(l, '2h')));
  const rows: string[] = [];
  try {
    for (let i = 0; i < LANES; i += 1) await call(url, tokens[i] ?? '', 0, 'memory_read_graph', {});
    rows.push(await snapshot(gw, 'start'));
    let done = 0;
    let errors = 0;
    let middle: Promise<string> | undefined;
    const t0 = Date.now();
    await Promise.all(
      lanes.map(async (_, i) => {
        for (let k = 1; k <= CALLS; k += 1) {
          const ok =
            k % 3 === 0
              ? await call(url, tokens[i] ?? '', k, 'memory_read_graph', {})
              : await call(url, tokens[i] ?? '', k, 'every_echo', { message: `l${i} c${k}` });
          if (!ok) errors += 1;
          done += 1;
          if (!middle && done >= (LANES * CALLS) / 2) middle = snapshot(gw, 'middle');
        }
      }),
    );
    const secs = (Date.now() - t0) / 1000;
    rows.push(await (middle ?? snapshot(gw, 'middle')));
    rows.push(await snapshot(gw, 'end'));
    process.stdout.write(
      `\nsoak: ${LANES} lanes × ${CALLS} calls (2/3 every_echo on ONE shared child, 1/3 memory_read_graph on each lane's own child)\n`,
    );
    process.stdout.write(`calls: ${done}, errors: ${errors}, ${secs.toFixed(1)} s, ${Math.round(done / secs)} calls/s\n\n`);
    process.stdout.write('| when   | front MB | hosts MB | everything children × MB | memory children × MB |\n|---|---|---|---|---|\n');
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    await gw.stop();
  }
};

await main();
