/**
 * `npm run bench:guard -- --blind2`: the second blind split (test/fixtures/guard/blind2.jsonl),
 * scored like --blind scores the frozen one (aggregates only: no id, no text; each scoring logged
 * and counted), twice over the same load: per tool (the tool, its siblings' names, its server's
 * instructions: what --blind does) and per lane (each server's whole surface judged with the
 * lane's other servers as context: what `lanegate scan` does with a catalog of several servers).
 */
import { judgeSurface } from '../../src/guard/scanner.js';
import { type Blind2Entry, blind2ScoreCount, loadBlind2 } from '../helpers/blind2.js';
import { judgeEntry } from '../helpers/corpus.js';
import { type Scored, table } from './guard-tables.js';

type Verdicts = ReturnType<typeof judgeSurface>;

/** Rows of the last per-lane scoring whose tool got no verdict (counted as admitted; printed, never named). */
export let unjudged = 0;

const scored = (e: Blind2Entry, vs: Verdicts): Scored => {
  const findings = vs.flatMap((v) => v.findings);
  return { e, rules: vs.some((v) => v.rules.length > 0), guard: findings.length > 0, codes: findings.map((f) => f.code) };
};

/** Per tool, as --blind scores the frozen split. */
export const scorePerTool = (rows: Blind2Entry[]): Scored[] => rows.map((e) => scored(e, judgeEntry(e)));

const groupBy = <T>(xs: T[], key: (x: T) => string): Map<string, T[]> => {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
};

/**
 * Per lane, as `lanegate scan` sees a catalog: each server's rows judged together (tools the split
 * leaves out stay as sibling names), the other servers of the lane (all their tool names) as context.
 * A row is refused when its tool's verdict has findings, or it carries the server's instructions and
 * their verdict has findings.
 */
export const scorePerLane = (rows: Blind2Entry[]): Scored[] => {
  const out = new Map<Blind2Entry, Scored>();
  unjudged = 0;
  for (const laneRows of groupBy(rows, (r) => r.lane).values()) {
    const servers = groupBy(laneRows, (r) => r.server);
    const names = new Map(
      [...servers].map(([s, rs]) => [s, [...new Set(rs.flatMap((r) => [String(r.tool.name ?? ''), ...(r.siblings ?? [])]))]]),
    );
    for (const [server, srows] of servers) {
      const own = new Set(srows.map((r) => String(r.tool.name ?? '')));
      const siblings = (names.get(server) ?? []).filter((n) => !own.has(n));
      const instructions = srows.find((r) => r.instructions !== undefined)?.instructions;
      const others = [...names].filter(([s]) => s !== server).map(([s, tools]) => ({ server: s, tools }));
      const verdicts = judgeSurface(
        {
          tools: srows.map((r) => r.tool),
          ...(siblings.length > 0 ? { siblings } : {}),
          ...(instructions !== undefined ? { instructions } : {}),
        },
        undefined,
        { others },
      );
      const tools = verdicts.filter((v) => v.kind !== 'instructions');
      srows.forEach((r, i) => {
        // By name; by position when the scanner spelled the name differently (same count, same order).
        const byName = tools.filter((v) => v.item === r.tool.name);
        const mine = byName.length > 0 ? byName : tools.length === srows.length && tools[i] ? [tools[i]] : [];
        if (mine.length === 0) unjudged += 1;
        const instr = r.instructions !== undefined ? verdicts.filter((v) => v.kind === 'instructions') : [];
        out.set(r, scored(r, [...mine, ...instr]));
      });
    }
  }
  return rows.map((r) => out.get(r) as Scored);
};

/** Recall per issue-23 class (the malicious rows' issueClass), aggregates only. */
const issueTable = (s: Scored[]): void => {
  const mal = s.filter((x) => x.e.label === 'malicious');
  const classes = [...new Set(mal.map((x) => (x.e as Blind2Entry).issueClass ?? '-'))].sort();
  console.log(`  ${'issue-23 class'.padEnd(34)} ${'rows'.padStart(5)}  rules  guard`);
  for (const c of classes) {
    const xs = mal.filter((x) => ((x.e as Blind2Entry).issueClass ?? '-') === c);
    const r = (k: 'rules' | 'guard'): string => (xs.filter((x) => x[k]).length / xs.length).toFixed(3);
    console.log(`  ${c.padEnd(34)} ${String(xs.length).padStart(5)}  ${r('rules')}  ${r('guard')}`);
  }
};

export const benchBlind2 = (): void => {
  const load = loadBlind2('bench:guard --blind2');
  console.log(
    load.frozen
      ? '\nBLIND2 (test/fixtures/guard/blind2.jsonl, hash checked against BLIND2.md)'
      : `\nBLIND2 OVERRIDE (LANEGATE_BLIND2_FILE; sha256 ${load.sha256}; logged in ${load.log}, not counted as a blind2 scoring)`,
  );
  const perTool = scorePerTool(load.rows);
  table('BLIND2 per tool (as --blind scores the frozen split)', perTool);
  issueTable(perTool);
  const perLane = scorePerLane(load.rows);
  table(`BLIND2 per lane catalog (as lanegate scan sees ${new Set(load.rows.map((r) => r.lane)).size} lanes)`, perLane);
  issueTable(perLane);
  if (unjudged > 0) console.log(`  WARNING: ${unjudged} row(s) got no verdict in their lane and count as admitted`);
  console.log(`\nblind2 split scored ${blind2ScoreCount()} time(s) so far`);
};
