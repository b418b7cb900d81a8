/**
 * The fairness bench's measuring parts: the quiet lane's sequential calls, the byte flood (a mode
 * of fairness.bench.ts run as its own process), one case (alone, under the flood, alone again),
 * and the floor bridge the byte flood is also run against.
 */
import { Agent } from 'node:http';
import { execa } from 'execa';
import { FIXTURE } from '../helpers/gateway.js';
import { modernCall, send } from '../helpers/http.js';
import { rssOf, unreadPost } from '../helpers/unread.js';
import { floorBridge as bridgeTo } from './paths.js';

const N = Number(process.env.BENCH_N ?? 2000);
export const agent = new Agent({ keepAlive: true, maxSockets: 256 });

export const post = (url: URL, c: { headers: Record<string, string>; body: string }): Promise<{ status: number; text: string }> =>
  send(url, c.body, c.headers, agent);

/** Longest a quiet run may take (a floor with ONE child queues the quiet calls behind every echo). */
const RUN_MS = Number(process.env.BENCH_RUN_MS ?? 60_000);

interface Quiet {
  p50: number;
  p99: number;
  errors: number;
  /** Calls made (N, or fewer if the run hit RUN_MS). */
  n: number;
}

/** The run beside the flood lasts at least this long (a fast floor makes N calls before the flood is up). */
const UNDER_MS = Number(process.env.BENCH_UNDER_MS ?? 15_000);

const quietRun = async (url: URL, token: string, tool: string, minMs = 0): Promise<Quiet> => {
  const lat: number[] = [];
  let errors = 0;
  const t0 = Date.now();
  for (let i = 0; (i < N || Date.now() - t0 < minMs) && Date.now() - t0 < RUN_MS && i < 1_000_000; i += 1) {
    const t = process.hrtime.bigint();
    const r = await post(url, modernCall(token, i, tool, { text: 'q' }));
    lat.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 200 || !r.text.includes('"q"')) errors += 1;
  }
  lat.sort((a, b) => a - b);
  return { p50: lat[Math.floor(lat.length * 0.5)] ?? 0, p99: lat[Math.floor(lat.length * 0.99)] ?? 0, errors, n: lat.length };
};

/**
 * The byte flood (issue 19): 64 connections each send a ~3.9 MB echo and never read its answer
 * past the status line; each is dropped a second after its status and opened again, until SIGTERM.
 */
export const bytesFloodUntilKilled = async (url: URL, tf: string, tool: string): Promise<void> => {
  let flooding = true;
  const counts: Record<string, number> = {};
  const payload = 'z'.repeat(3_900_000);
  const open = new Set<{ socket: { destroy: () => void } }>();
  const slot = async (k: number): Promise<void> => {
    for (let i = 0; flooding && i < 100_000; i += 1) {
      const c = modernCall(tf, k * 100_000 + i, tool, { text: payload });
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

/** Where a case runs: the quiet lane's URL, token and tool; the flood's; the processes to watch. */
export interface CaseTarget {
  quiet: { url: string; token: string; tool: string };
  flood: { url: string; token: string; tool: string };
  /** The processes whose RSS growth is reported, by name (resolved after the quiet lane's first run). */
  pids: () => Promise<Record<string, number>>;
}

const f = (x: number): string => x.toFixed(2).padStart(8);

/** The quiet lane alone, then beside `mode` (a flood mode of `script`, its own process), then alone again. */
export const caseRun = async (label: string, script: string, t: CaseTarget, mode: string): Promise<{ p99x: number }> => {
  const qurl = new URL(t.quiet.url);
  const alone = await quietRun(qurl, t.quiet.token, t.quiet.tool);
  const pids = await t.pids();
  const rss = (): Record<string, number> => Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, pid ? rssOf(pid).rss : 0]));
  const before = rss();
  const flood = execa(process.execPath, ['--import', 'tsx', script, mode, t.flood.url, t.flood.token, t.flood.tool], {
    reject: false,
    buffer: true,
  });
  await new Promise((r) => setTimeout(r, 2500));
  const peak = { ...before };
  const sampler = setInterval(() => {
    for (const [k, v] of Object.entries(rss())) peak[k] = Math.max(peak[k] ?? 0, v);
  }, 100);
  const under = await quietRun(qurl, t.quiet.token, t.quiet.tool, UNDER_MS);
  clearInterval(sampler);
  flood.kill('SIGTERM');
  const counts = String((await flood).stdout).trim();
  await new Promise((r) => setTimeout(r, 3000));
  const after = await quietRun(qurl, t.quiet.token, t.quiet.tool);
  const base = { p50: Math.min(alone.p50, after.p50), p99: Math.min(alone.p99, after.p99) };
  process.stdout.write(
    `\nfairness, ${label}: the quiet lane's sequential tools/call, ${N} calls each (beside the flood: for ${UNDER_MS / 1000} s at least; any run: ${RUN_MS / 1000} s at most) (ms)\n`,
  );
  process.stdout.write('| quiet lane        |      p50 |      p99 | errors | calls |\n|---|---|---|---|---|\n');
  process.stdout.write(`| alone, before     | ${f(alone.p50)} | ${f(alone.p99)} | ${alone.errors} | ${alone.n} |\n`);
  process.stdout.write(`| alone, after      | ${f(after.p50)} | ${f(after.p99)} | ${after.errors} | ${after.n} |\n`);
  process.stdout.write(`| while flood runs  | ${f(under.p50)} | ${f(under.p99)} | ${under.errors} | ${under.n} |\n`);
  process.stdout.write(`| ratio to the better alone | ${f(under.p50 / base.p50)}x | ${f(under.p99 / base.p99)}x | goal p99 <= 2x |\n`);
  const growth = Object.keys(pids)
    .map((k) => `${k} +${((peak[k] ?? 0) - (before[k] ?? 0)).toFixed(0)} MB`)
    .join(', ');
  process.stdout.write(`RSS growth during the flood: ${growth} (goal < 200 MB each)\n`);
  process.stdout.write(`flood lane meanwhile (its own process): ${counts}\n`);
  return { p99x: under.p99 / base.p99 };
};

/** The in-repo floor bridge to ONE stdio child of the fixture, on a free port. */
export const floorBridge = (): ReturnType<typeof bridgeTo> => bridgeTo([FIXTURE]);
