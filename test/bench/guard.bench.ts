/**
 * npm run bench:guard: the guard (rules, then the second detector) on the labelled corpus.
 *
 * By default it scores the TRAINING part (test/fixtures/guard/train.jsonl) per class, lists the
 * misclassified ids, and times the scanner. `-- --blind` scores the frozen blind split
 * (blind.jsonl; refused unless its hash is the one BLIND.md froze), prints aggregates only (no
 * ids, no text), and adds a line to blind-scores.log; the bench prints how many times the blind
 * split has been scored. Goal on the blind split (issue 23): recall >= 0.75 at FPR <= 0.03, <= 2 ms a tool.
 * `-- --extra FILE.jsonl` also scores another labelled file (rows added for issue 23) the same way.
 * `-- --blind2` scores the second blind split (blind2.jsonl, BLIND2.md) the same way, per tool and per lane.
 */
import { blindScoreCount, type CorpusEntry, judgeEntry, loadBlind, loadCorpus } from '../helpers/corpus.js';
import { judgeSurface } from '../../src/guard/scanner.js';
import { benchBlind2 } from './guard-blind2.js';
import { type Scored, table } from './guard-tables.js';

const blind = process.argv.includes('--blind');
const verbose = process.argv.includes('--verbose');

const scoreAll = (rows: CorpusEntry[]): Scored[] =>
  rows.map((e) => {
    const items = judgeEntry(e);
    const findings = items.flatMap((i) => i.findings);
    return { e, rules: items.some((i) => i.rules.length > 0), guard: findings.length > 0, codes: findings.map((f) => f.code) };
  });

const train = scoreAll(loadCorpus('train.jsonl'));
table('TRAINING part (the rules and the model were tuned on it)', train);
const missed = train.filter((s) => s.e.label === 'malicious' && !s.guard);
const falsePos = train.filter((s) => s.e.label === 'benign' && s.guard);
console.log(`  missed: ${missed.length}   false alarms: ${falsePos.map((s) => `${s.e.id}[${s.codes.join(',')}]`).join(' ') || 'none'}`);
if (verbose)
  for (const s of [...missed, ...falsePos])
    console.log(
      `\n${s.e.id} (${s.e.label}/${s.e.class}, ${s.e.group}):\n${JSON.stringify(s.e.tool).slice(0, 500)} -> ${s.codes.join(',')}`,
    );

const extraAt = process.argv.indexOf('--extra');
if (extraAt > 0 && process.argv[extraAt + 1]) table(`EXTRA ${process.argv[extraAt + 1]}`, scoreAll(loadCorpus(process.argv[extraAt + 1])));

if (blind) {
  table('BLIND split (never read while tuning)', scoreAll(loadBlind('bench:guard --blind')));
}
if (process.argv.includes('--blind2')) benchBlind2();
console.log(
  `\nblind split scored ${blindScoreCount()} time(s) so far${blind ? '' : '; `npm run bench:guard -- --blind` scores it (and counts)'}`,
);

const surfaces = train.map((s) => ({ tools: [s.e.tool], siblings: s.e.siblings ?? [] }));
for (const s of surfaces.slice(0, 200)) judgeSurface(s);
const c0 = process.cpuUsage();
const t0 = performance.now();
let n = 0;
while (performance.now() - t0 < 2000)
  for (const s of surfaces) {
    judgeSurface(s);
    n++;
  }
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
// CPU time is what the goal is about: on a shared machine wall time also counts other processes' turns.
console.log(
  `speed: ${((cpu.user + cpu.system) / 1000 / n).toFixed(3)} ms CPU a tool (goal <= 2 ms, no model); wall ${(ms / n).toFixed(3)} ms, ${Math.round((n / ms) * 1000)} tools/s`,
);
