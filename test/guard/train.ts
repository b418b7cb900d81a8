/**
 * Trains the guard's second detector on the TRAINING part of the corpus only
 * (`node --import tsx test/guard/train.ts`), and writes src/guard/model-weights.ts.
 *
 * The model is an L2-regularised logistic regression over the features of src/guard/features.ts
 * (and the conjunctions in model.ts), fitted by full-batch gradient descent from zero. The guard
 * refuses when the rules OR the model do, so the model learns what the rules leave: it is fitted
 * on every benign row and on the malicious rows the rules admit. The same
 * corpus gives the same weights, bit for bit. Rows are weighted so each label carries half the
 * mass and a large source cannot drown a small one (1/sqrt of its group's size).
 *
 * The threshold is chosen by 5-fold cross-validation over SOURCES (each held out whole): the
 * lowest score at which the combined guard (rules OR model) keeps the out-of-fold false-positive
 * rate at or under TARGET_FPR. The printed out-of-fold figures are the honest estimate from
 * training data; the blind split is never read here.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Feature } from '../../src/guard/features.js';
import { type CorpusEntry, judgeEntry, loadCorpus } from '../helpers/corpus.js';
import { repoOfGroup } from './corpus-tools.js';

const TARGET_FPR = 0.02;
/** Naming a secret is never evidence by itself (a vault, an SSH-key manager must): these features get no weight. */
const UNWEIGHTED = /^(?:src:[a-z]+|rule:sensitive:\w+)$/;
const LAMBDA = 0.003;
const STEPS = 4000;
const RATE = 0.5;
const FOLDS = 5;

interface Example {
  e: CorpusEntry;
  x: Map<string, number>;
  y: number;
  ruled: boolean;
  c: number;
}

const rows = loadCorpus('train.jsonl');
const examples: Example[] = rows.map((e) => {
  const items = judgeEntry(e);
  const x = new Map<string, number>();
  for (const it of items) {
    const feats: Feature[] = it.second.score.contributions.map((c) => c.feature);
    for (const f of feats) if (!UNWEIGHTED.test(f.id)) x.set(f.id, Math.max(x.get(f.id) ?? 0, f.value));
  }
  return { e, x, y: e.label === 'malicious' ? 1 : 0, ruled: items.some((it) => it.rules.length > 0 || it.second.declared === true), c: 0 };
});

const weigh = (xs: Example[]): void => {
  for (const label of [0, 1]) {
    const mine = xs.filter((x) => x.y === label);
    const size = new Map<string, number>();
    for (const x of mine) size.set(x.e.group, (size.get(x.e.group) ?? 0) + 1);
    const raw = mine.map((x) => 1 / Math.sqrt(size.get(x.e.group) ?? 1));
    const total = raw.reduce((a, b) => a + b, 0);
    mine.forEach((x, i) => {
      x.c = (raw[i] ?? 0) / total / 2;
    });
  }
};

interface Model {
  bias: number;
  weights: Map<string, number>;
}

const fit = (all: Example[]): Model => {
  const xs = all.filter((x) => x.y === 0 || !x.ruled);
  weigh(xs);
  const w = new Map<string, number>();
  let b = 0;
  for (let step = 0; step < STEPS; step++) {
    const g = new Map<string, number>();
    let gb = 0;
    for (const ex of xs) {
      let z = b;
      for (const [k, v] of ex.x) z += (w.get(k) ?? 0) * v;
      const p = 1 / (1 + Math.exp(-z));
      const d = ex.c * (p - ex.y);
      gb += d;
      for (const [k, v] of ex.x) g.set(k, (g.get(k) ?? 0) + d * v);
    }
    for (const [k, gk] of g) {
      const wk = w.get(k) ?? 0;
      w.set(k, wk - RATE * (gk + LAMBDA * wk));
    }
    b -= RATE * gb;
  }
  return { bias: b, weights: w };
};

const score = (m: Model, ex: Example): number => {
  let z = m.bias;
  for (const [k, v] of ex.x) z += (m.weights.get(k) ?? 0) * v;
  return z;
};

/** Folds hold out whole SOURCES (as the blind split does), so a benchmark's paraphrases never straddle folds. */
const fold = (g: string): number => createHash('sha256').update(repoOfGroup(g)).digest().readUInt32BE(0) % FOLDS;
const oof = new Map<Example, number>();
for (let f = 0; f < FOLDS; f++) {
  const m = fit(examples.filter((x) => fold(x.e.group) !== f));
  for (const x of examples.filter((x) => fold(x.e.group) === f)) oof.set(x, score(m, x));
}

const benign = examples.filter((x) => x.y === 0);
const candidates = [...new Set(benign.filter((x) => !x.ruled).map((x) => oof.get(x) ?? 0))].sort((a, b) => a - b);
const fprAt = (t: number): number => benign.filter((x) => x.ruled || (oof.get(x) ?? 0) >= t).length / benign.length;
let threshold = Number.POSITIVE_INFINITY;
for (const c of candidates) {
  const t = c + 1e-6;
  if (fprAt(t) <= TARGET_FPR) {
    threshold = t;
    break;
  }
}
if (!Number.isFinite(threshold)) threshold = (candidates.at(-1) ?? 0) + 1e-6;

const refusedOof = (x: Example): boolean => x.ruled || (oof.get(x) ?? 0) >= threshold;
const classes = [...new Set(examples.map((x) => `${x.e.label}/${x.e.class}`))].sort();
console.log(`training rows ${examples.length}; out-of-fold (${FOLDS} folds by group), threshold ${threshold.toFixed(3)}:`);
for (const k of classes) {
  const xs = examples.filter((x) => `${x.e.label}/${x.e.class}` === k);
  const r = xs.filter(refusedOof).length;
  console.log(
    `  ${k.padEnd(28)} refused ${r}/${xs.length} (${(r / xs.length).toFixed(3)})  rules alone ${xs.filter((x) => x.ruled).length}`,
  );
}
const mal = examples.filter((x) => x.y === 1);
console.log(
  `  recall ${(mal.filter(refusedOof).length / mal.length).toFixed(3)}  FPR ${(benign.filter(refusedOof).length / benign.length).toFixed(3)}`,
);

const final = fit(examples);
const weights = Object.fromEntries(
  [...final.weights]
    .filter(([, v]) => Math.abs(v) >= 0.01)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => [k, Math.round(v * 1000) / 1000]),
);
const trainedOn = createHash('sha256')
  .update(JSON.stringify(rows.map((r) => r.id)))
  .digest('hex')
  .slice(0, 16);
writeFileSync(
  new URL('../../src/guard/model-weights.ts', import.meta.url),
  `// biome-ignore-all lint/suspicious/noApproximativeNumericConstant: learned weights, not constants
/** Generated by test/guard/train.ts from test/fixtures/guard/train.jsonl; do not edit. */
export interface ModelWeights {
  trainedOn: string;
  bias: number;
  threshold: number;
  weights: Record<string, number>;
}

export const MODEL: ModelWeights = ${JSON.stringify(
    {
      trainedOn: `train.jsonl ${rows.length} rows ${trainedOn}`,
      bias: Math.round(final.bias * 1000) / 1000,
      threshold: Math.round(threshold * 1000) / 1000,
      weights,
    },
    null,
    2,
  )};
`,
);
console.log(`wrote src/guard/model-weights.ts: ${Object.keys(weights).length} weights`);
