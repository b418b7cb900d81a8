import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MODEL } from '../../src/guard/model-weights.js';
import { CORPUS_CLASSES, loadCorpus, verdictOf } from '../helpers/corpus.js';

const train = loadCorpus('train.jsonl');

describe('guard corpus (training part)', () => {
  it('is well formed: labels, classes, sources, licences, groups, unique ids', () => {
    assert.ok(train.filter((e) => e.label === 'malicious').length >= 200);
    assert.ok(train.filter((e) => e.label === 'benign').length >= 400);
    assert.equal(new Set(train.map((e) => e.id)).size, train.length);
    for (const e of train) {
      assert.ok(CORPUS_CLASSES[e.label].includes(e.class), `${e.id}: class ${e.class}`);
      assert.ok(e.source.length > 3 && e.licence.length > 1 && e.group.length > 1, e.id);
      assert.equal(typeof e.tool.name, 'string', e.id);
    }
  });

  it('the blind split is the frozen one (hash as BLIND.md recorded; read here only to hash it)', () => {
    const dir = new URL('../fixtures/guard/', import.meta.url);
    const have = createHash('sha256')
      .update(readFileSync(new URL('blind.jsonl', dir)))
      .digest('hex');
    assert.match(readFileSync(new URL('BLIND.md', dir), 'utf8'), new RegExp(`sha256: \`${have}\``));
  });

  it('the committed model was trained on this training part (retrain after any corpus change)', () => {
    const ids = createHash('sha256')
      .update(JSON.stringify(train.map((r) => r.id)))
      .digest('hex')
      .slice(0, 16);
    assert.equal(MODEL.trainedOn, `train.jsonl ${train.length} rows ${ids}`);
  });

  // A regression floor on data the guard was tuned on (the honest figures are the blind ones: npm run bench:guard).
  it('on the data it was tuned on: recall >= 0.65, false-positive rate <= 0.01, every earlier hard negative admitted', () => {
    const mal = train.filter((e) => e.label === 'malicious');
    const ben = train.filter((e) => e.label === 'benign');
    const recall = mal.filter((e) => verdictOf(e).length > 0).length / mal.length;
    const fpr = ben.filter((e) => verdictOf(e).length > 0).length / ben.length;
    assert.ok(recall >= 0.65, `recall ${recall}`);
    assert.ok(fpr <= 0.01, `fpr ${fpr}`);
    const earlier = ben.filter((e) => e.id.startsWith('ben-') && e.class === 'hard-negative');
    assert.ok(earlier.length >= 20);
    assert.deepEqual(
      earlier.filter((e) => verdictOf(e).length > 0).map((e) => e.id),
      [],
    );
  });
});
