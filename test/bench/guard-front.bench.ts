/**
 * The front's view of lanes' catalogs (issue 23, item 3): what judging a lane's whole catalog
 * across hosts costs, how often it withholds a server of real, benign catalogs, and what a call
 * pays for it. Benign rows of the training part, grouped by their source (one source = one real
 * server), are put into lanes of two hosts; every server of such a lane is honest, so every server
 * withheld is a false alarm. Run: node --import tsx test/bench/guard-front.bench.ts
 */
import { type CatalogServer, catalogFindings } from '../../src/guard/catalog-view.js';
import { Catalog } from '../../src/front/mcp/catalog.js';
import { CatalogGuard } from '../../src/front/mcp/catalog-guard.js';
import { twoHostPolicy } from '../helpers/policy-objects.js';
import { RawResult } from '../../src/rpc/raw.js';
import { loadCorpus } from '../helpers/corpus.js';

const benign = loadCorpus('train.jsonl').filter((e) => e.label === 'benign');
const bySource = new Map<string, Record<string, unknown>[]>();
for (const e of benign) bySource.set(e.group, [...(bySource.get(e.group) ?? []), e.tool]);
// A server lists each name once (the corpus may hold a tool twice).
const servers = [...bySource].map(([group, tools]) => ({
  group,
  tools: [...new Map(tools.map((t) => [String(t.name), t])).values()],
}));

// Lanes of 6 real servers on two hosts (3 + 3), every server in many lanes.
const LANES = 400;
let seed = 7;
const rand = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};
let judged = 0;
let withheld = 0;
let tools = 0;
const reasons = new Map<string, number>();
const c0 = process.cpuUsage();
for (let l = 0; l < LANES; l += 1) {
  const pick = new Set<number>();
  while (pick.size < Math.min(6, servers.length)) pick.add(rand(servers.length));
  const lane: CatalogServer[] = [...pick].map((i, k) => ({
    server: `s${i}`,
    host: k < 3 ? 'org' : 'public',
    prefix: `s${i}`,
    tools: servers[i]?.tools ?? [],
  }));
  const found = catalogFindings(lane);
  judged += lane.length;
  tools += lane.reduce((n, s) => n + s.tools.length, 0);
  withheld += found.size;
  for (const f of [...found.values()].flat()) reasons.set(f.code, (reasons.get(f.code) ?? 0) + 1);
}
const cpu = process.cpuUsage(c0);
console.log(
  `${benign.length} benign rows as ${servers.length} real servers; ${LANES} lanes of 6 servers on 2 hosts (${judged} servers, ${tools} tools judged)`,
);
console.log(
  `  servers withheld: ${withheld} of ${judged} (false-alarm rate ${(withheld / judged).toFixed(4)}) ${JSON.stringify(Object.fromEntries(reasons))}`,
);
console.log(`  judging: ${((cpu.user + cpu.system) / 1000 / tools).toFixed(4)} ms CPU a tool (once per listing content; memoised)`);

// What a call of a lane spanning two hosts pays: a cached tools listing read, against a one-host lane.
const policy = twoHostPolicy(
  [
    ['a', 'org'],
    ['b', 'public'],
  ],
  { two: ['a', 'b'], one: ['a'] },
);
const listing = (prefix: string): RawResult =>
  RawResult.of({ tools: (servers[0]?.tools ?? []).map((t) => ({ ...t, name: `${prefix}_${String(t.name)}` })) });
let hostLists = 0;
const catalog = new Catalog(
  () => policy,
  async (key) => {
    hostLists += 1;
    return listing(key === 'org' ? 'a' : 'b');
  },
  new CatalogGuard(
    () => policy,
    () => ({ stamp: '', list: [] }),
  ),
);
const perCall = async (lane: string, server: string): Promise<number> => {
  await catalog.withheldFor(lane, server);
  const N = 200_000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i += 1) await catalog.withheldFor(lane, server);
  return Number(process.hrtime.bigint() - t0) / N;
};
const two = await perCall('two', 'b');
const one = await perCall('one', 'a');
console.log(
  `  a call's check: ${(two / 1000).toFixed(2)} µs for a lane on two hosts (cached listing), ${(one / 1000).toFixed(2)} µs for a lane on one host; host listings made: ${hostLists}`,
);
