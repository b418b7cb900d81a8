/**
 * npm run bench:tripwire — false retreats of the tripwire on honest servers.
 * Several lanes share server-everything (its probe's scope: echo, get-sum) and server-filesystem
 * (one read-only root; every lane lists, searches and reads the same files, often by a path it
 * knew before any listing showed it) after a real measure pass promoted both live. Every lane
 * sends text of its own (ids, keys) and echoes ids it read from the shared files. Prints the
 * calls made, the answers withheld, the hazards and retreats recorded (all must be 0), and how
 * many suspects a fresh process absolved, and the spot checks run meanwhile (every second here).
 * Exits 1 if anything was withheld or retreated.
 */
import { Agent } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EVERYTHING, NODE_MODULES, operatorApi, policyHead, startGateway, tempDir } from '../helpers/gateway.js';
import { modernCall, send } from '../helpers/http.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 10_200);
const LANES = Number(process.env.BENCH_LANES ?? 6);
const FILESYSTEM = path.join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const hex = (n: number): string => randomBytes(n).toString('hex');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;

/** A read-only tree whose names and contents are full of distinctive ids, some naming each other. */
const makeRoot = (): { root: string; files: string[]; ids: string[]; dirs: string[] } => {
  const root = path.join(tempDir('tripbench'), 'root');
  const dirs = [root, path.join(root, 'invoices'), path.join(root, 'notes'), path.join(root, 'notes', 'q3-2026')];
  for (const d of dirs) mkdirSync(d, { recursive: true });
  const files: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 30; i += 1) {
    const f = path.join(pick(dirs), `${pick(['report', 'invoice', 'memo', 'plan'])}-${hex(4)}-${i}.txt`);
    files.push(f);
  }
  files.forEach((f, i) => {
    const own = Array.from({ length: 6 }, () => `INV-${hex(6)}`);
    ids.push(...own);
    const refs = [pick(files), pick(files)].map((x) => path.basename(x));
    writeFileSync(
      f,
      `file ${i}\ncustomer cust${hex(5)} order ${own.join(', ')}\nsee also ${refs.join(' and ')}\n${'lorem ipsum '.repeat(20)}\n`,
    );
  });
  return { root, files, ids, dirs };
};

const main = async (): Promise<void> => {
  const { root, files, ids, dirs } = makeRoot();
  const lanes = Array.from({ length: LANES }, (_, i) => `l${i + 1}`);
  const policy = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  everything:
    prefix: every
    domain: public
    stdio: { command: node, args: ["${EVERYTHING}", "stdio"] }
    probe:
      - { tool: echo, args: { message: "{{canary}}" } }
      - { tool: get-sum, args: { a: 2, b: 3 } }
  fs:
    prefix: fs
    domain: public
    stdio: { command: node, args: ["${FILESYSTEM}", "${root}"] }
    probe:
      - { tool: list_allowed_directories }
      - { tool: list_directory, args: { path: "${root}" } }
      - { tool: read_text_file, args: { path: "${files[0]}" } }
      - { tool: read_multiple_files, args: { paths: ["${files[1]}", "${files[2]}"] } }
      - { tool: search_files, args: { path: "${root}", pattern: "{{canary}}" } }
      - { tool: directory_tree, args: { path: "${root}" } }
      - { tool: get_file_info, args: { path: "${files[0]}" } }
lanes:
${lanes.map((l) => `  ${l}: { servers: [everything, fs] }`).join('\n')}
`;
  // Spot checks every second (production: every minute), so they run throughout the workload too.
  const gw = await startGateway(policy, { env: { LANEGATE_SPOT_CHECK_MS: process.env.BENCH_SPOT_MS ?? '1000' } });
  try {
    const tokens = Object.fromEntries(await Promise.all(lanes.map(async (l) => [l, await gw.token(l)] as const)));
    await operatorApi(gw, '/api/measure', 'POST');
    for (let i = 0; i < 1200 && ((await operatorApi(gw, '/api/measure')) as { running: boolean }).running; i += 1)
      await new Promise((r) => setTimeout(r, 200));
    const url = new URL(gw.url);
    const stats = { calls: 0, withheld: 0, errors: 0, byTool: {} as Record<string, number> };
    const errorsSeen: string[] = [];
    const step = (lane: string, i: number): { tool: string; args: Record<string, unknown> } => {
      const r = Math.random();
      if (r < 0.25) return { tool: 'every_echo', args: { message: `${lane} note ${lane}ref${hex(6)} step ${i}` } };
      if (r < 0.3) return { tool: 'every_echo', args: { message: `${lane} saw ${pick(ids)} in ${path.basename(pick(files))}` } };
      if (r < 0.35) return { tool: 'every_get-sum', args: { a: Math.floor(Math.random() * 1e9), b: i } };
      if (r < 0.5) return { tool: 'fs_list_directory', args: { path: pick(dirs) } };
      if (r < 0.72) return { tool: 'fs_read_text_file', args: { path: pick(files) } };
      if (r < 0.8)
        return {
          tool: 'fs_search_files',
          args: { path: root, pattern: pick(['report', 'memo', path.basename(pick(files)).slice(0, 12)]) },
        };
      if (r < 0.86) return { tool: 'fs_directory_tree', args: { path: pick(dirs) } };
      if (r < 0.93) return { tool: 'fs_get_file_info', args: { path: pick(files) } };
      return { tool: 'fs_read_multiple_files', args: { paths: [pick(files), pick(files)] } };
    };
    const perLane = Math.ceil(CALLS / lanes.length);
    const t0 = Date.now();
    await Promise.all(
      lanes.map(async (lane) => {
        for (let i = 0; i < perLane; i += 1) {
          const s = step(lane, i);
          const c = modernCall(tokens[lane] as string, i, s.tool, s.args);
          const res = await send(url, c.body, c.headers, agent);
          stats.calls += 1;
          stats.byTool[s.tool] = (stats.byTool[s.tool] ?? 0) + 1;
          if (/withheld by the tripwire/.test(res.text)) stats.withheld += 1;
          else if (res.status !== 200 || /"isError":true|"error":\{/.test(res.text)) {
            stats.errors += 1;
            if (errorsSeen.length < 5) errorsSeen.push(`${s.tool}: ${res.text.slice(0, 300)}`);
          }
        }
      }),
    );
    const seconds = (Date.now() - t0) / 1000;
    const metrics = await (await fetch(`${gw.origin}/metrics`, { headers: { authorization: `Bearer ${gw.operatorToken}` } })).text();
    const sum = (re: RegExp): number => [...metrics.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
    const log = gw.stderr();
    const procs = (await operatorApi(gw, '/api/processes')) as {
      hosts: Record<string, { children: { server: string; placement: string }[] }>;
    };
    const children = Object.values(procs.hosts).flatMap((h) => h.children);
    const out = {
      lanes: lanes.length,
      calls: stats.calls,
      seconds,
      byTool: stats.byTool,
      withheld: stats.withheld,
      otherErrors: stats.errors,
      hazards: sum(/lanegate_hazards_total\{[^}]*\} (\d+)/g),
      falseRetreats: sum(/lanegate_placement_changes_total\{[^}]*change="retreated"\} (\d+)/g),
      promotions: sum(/lanegate_placement_changes_total\{[^}]*change="promoted"\} (\d+)/g),
      suspectsAbsolved: [...log.matchAll(/"event":"tripwire_absolved"[^\n]*"tokens":(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0),
      absolutions: (log.match(/"event":"tripwire_absolved"/g) ?? []).length,
      spotChecks: (log.match(/"event":"spot_check"/g) ?? []).length,
      spotChecksRebased: (log.match(/"event":"spot_check_rebased"/g) ?? []).length,
      spotChecksFailed: (log.match(/"event":"spot_check_failed"/g) ?? []).length,
      sharedChildrenAtEnd: children.filter((c) => c.placement === 'shared').map((c) => c.server),
      dedicatedChildrenAtEnd: children.filter((c) => c.placement === 'dedicated').length,
      sampleErrors: errorsSeen,
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    const ok = out.withheld === 0 && out.falseRetreats === 0 && out.hazards === 0 && out.promotions === 2 && out.calls >= 10_000;
    process.exitCode = ok ? 0 : 1;
  } finally {
    await gw.stop();
  }
};

await main();
