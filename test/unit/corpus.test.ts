import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadCorpus, verdictOf } from '../helpers/corpus.js';

const corpus = loadCorpus();

describe('guard corpus', () => {
  it('is well formed: 40+ of each label, every entry with a source and a licence, unique ids', () => {
    assert.ok(corpus.filter((e) => e.label === 'malicious').length >= 40);
    assert.ok(corpus.filter((e) => e.label === 'benign').length >= 40);
    assert.equal(new Set(corpus.map((e) => e.id)).size, corpus.length);
    for (const e of corpus) {
      assert.ok(e.source.length > 3 && e.licence.length > 1, e.id);
      assert.equal(typeof e.tool.name, 'string', e.id);
    }
  });

  it('every hard negative passes the scanner', () => {
    const hard = corpus.filter((e) => e.technique.startsWith('hard-negative'));
    assert.ok(hard.length >= 20);
    const refused = hard
      .filter((e) => verdictOf(e).length > 0)
      .map(
        (e) =>
          `${e.id}: ${verdictOf(e)
            .map((f) => f.code)
            .join(',')}`,
      );
    assert.deepEqual(refused, []);
  });

  it('meets the targets: recall >= 0.90, false-positive rate <= 0.03', () => {
    const mal = corpus.filter((e) => e.label === 'malicious');
    const ben = corpus.filter((e) => e.label === 'benign');
    const recall = mal.filter((e) => verdictOf(e).length > 0).length / mal.length;
    const fpr = ben.filter((e) => verdictOf(e).length > 0).length / ben.length;
    assert.ok(recall >= 0.9, `recall ${recall}`);
    assert.ok(fpr <= 0.03, `fpr ${fpr}`);
  });
});
