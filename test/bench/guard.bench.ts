/**
 * npm run bench:guard: layer two on the labelled corpus (test/fixtures/guard/corpus.jsonl).
 * Prints recall, false-positive rate, the misclassified ids, and the time to scan 1,000 tool
 * definitions. Targets: recall >= 0.90, FPR <= 0.03, 1,000 tools < 1 s.
 */
import { loadCorpus, verdictOf, type CorpusEntry } from '../helpers/corpus.js';
import { scanTool } from '../../src/guard/scanner.js';

const holdout = process.argv.includes('--holdout');
const corpus: CorpusEntry[] = loadCorpus(holdout ? 'holdout.jsonl' : 'corpus.jsonl');
if (holdout)
  console.log(
    'HELD-OUT set: built without reading the rules; measured blind once (recall 0.500, FPR 0.000), then the rules were generalised from its misses, so this figure is no longer blind',
  );
const mal = corpus.filter((e) => e.label === 'malicious');
const ben = corpus.filter((e) => e.label === 'benign');
const missed = mal.filter((e) => verdictOf(e).length === 0);
const falsePos = ben.filter((e) => verdictOf(e).length > 0);
const recall = (mal.length - missed.length) / mal.length;
const fpr = falsePos.length / ben.length;

const tools = corpus.map((e) => e.tool);
const thousand = Array.from({ length: 1000 }, (_, i) => ({ ...tools[i % tools.length], name: `t${i}` }));
for (const t of thousand.slice(0, 100)) scanTool(t);
const t0 = performance.now();
for (const t of thousand) scanTool(t);
const ms = performance.now() - t0;

console.log(
  `corpus: ${mal.length} malicious, ${ben.length} benign (${ben.filter((e) => e.technique.startsWith('hard-negative')).length} hard negatives)`,
);
console.log(`recall:              ${recall.toFixed(3)}  (target >= 0.90)`);
console.log(`false-positive rate: ${fpr.toFixed(3)}  (target <= 0.03)`);
console.log(`missed (false negatives): ${missed.map((e) => e.id).join(', ') || 'none'}`);
console.log(
  `false positives:          ${
    falsePos
      .map(
        (e) =>
          `${e.id} [${verdictOf(e)
            .map((f) => f.code)
            .join(',')}]`,
      )
      .join(', ') || 'none'
  }`,
);
console.log(`1,000 tool definitions scanned in ${ms.toFixed(1)} ms (target < 1000 ms)`);
if (process.argv.includes('--verbose')) {
  for (const e of [...missed, ...falsePos])
    console.log(
      `\n${e.id} (${e.label}, ${e.technique}):\n${JSON.stringify(e.tool).slice(0, 600)}\n${e.instructions ?? ''}\n-> ${JSON.stringify(verdictOf(e))}`,
    );
}
