/**
 * The second detector's decision: a logistic model over the features of one item. The weights
 * are learned by `test/guard/train.ts` from the training part of the corpus only, committed in
 * `model-weights.ts`, and read here; nothing is downloaded or learned at run time. Every
 * refusal names the feature that contributed most, with the text that fired it. Pure.
 */
import type { Feature } from './features.js';
import { MODEL } from './model-weights.js';

/** Conjunctions the model may weigh apart from their parts: a source is ordinary, a source AND a sink is a flow. */
const PAIRS: [string, string][] = [
  ['purpose:narrow', 'src:credfile'],
  ['purpose:narrow', 'src:conversation'],
  ['purpose:narrow', 'src:secrets'],
  ['purpose:narrow', 'src:private'],
  ['purpose:narrow', 'sink:outside'],
  ['src:credfile', 'sink:outside'],
  ['src:secrets', 'sink:outside'],
  ['src:conversation', 'sink:outside'],
  ['src:private', 'sink:outside'],
  ['manner:quiet', 'flow:source-moved'],
  ['manner:quiet', 'sink:outside'],
  ['ref:foreign', 'dir:addresses'],
  ['ref:other-tools', 'dir:addresses'],
  ['lang:non-latin', 'src:secrets'],
  ['lang:non-latin', 'sink:outside'],
  ['dir:addresses', 'src:credfile'],
  ['dir:addresses', 'src:conversation'],
  ['purpose:narrow', 'param:carrier-name'],
  ['dir:addresses', 'steer:hardcoded-call'],
  ['ref:sibling', 'steer:speak-to-user'],
  ['ref:sibling', 'steer:fake-state'],
  ['ref:sibling', 'steer:override-user'],
  ['dir:addresses', 'steer:fake-notice'],
  ['dir:addresses', 'steer:speak-to-user'],
];

/** The features plus the conjunctions that hold. */
export const expand = (features: Feature[]): Feature[] => {
  const byId = new Map(features.map((f) => [f.id, f]));
  const out = [...features];
  for (const [a, b] of PAIRS) {
    const fa = byId.get(a);
    const fb = byId.get(b);
    if (fa && fb) out.push({ id: `${a}&${b}`, value: Math.min(fa.value, fb.value), field: fb.field, evidence: fb.evidence });
  }
  return out;
};

export interface Contribution {
  feature: Feature;
  weight: number;
}

export interface Score {
  score: number;
  threshold: number;
  refused: boolean;
  /** Every feature that fired with its learned weight, largest contribution first. */
  contributions: Contribution[];
}

export const scoreFeatures = (features: Feature[], model = MODEL): Score => {
  const contributions = expand(features)
    .map((feature) => ({ feature, weight: model.weights[feature.id] ?? 0 }))
    .sort((a, b) => b.weight * b.feature.value - a.weight * a.feature.value);
  const score = contributions.reduce((s, c) => s + c.weight * c.feature.value, model.bias);
  return { score, threshold: model.threshold, refused: score >= model.threshold, contributions };
};
