/**
 * Adds rows to the TRAINING part only (`node --import tsx test/guard/add-training.ts staging/*.jsonl`).
 * The blind split stays as frozen (its file and hash do not change). A staged row is dropped
 * when its source is one the blind split holds (whole sources never straddle), when it is a
 * near-copy of any row already in either part (so nothing blind leaks into training by
 * paraphrase), or when it is malformed. Prints counts only.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { CORPUS_CLASSES } from '../helpers/corpus.js';
import { nearCopy, readRows, repoOfGroup, type Row, shingles, textOf } from './corpus-tools.js';

const DIR = new URL('../fixtures/guard/', import.meta.url);

const train = readRows(new URL('train.jsonl', DIR));
const blind = readRows(new URL('blind.jsonl', DIR));
const blindSources = new Set(blind.map((r) => repoOfGroup(r.group ?? '')));
const kept = [...train, ...blind].map((r) => ({ label: r.label, sh: shingles(textOf(r)) }));
const ids = new Set(train.map((r) => r.id));
const counts = { added: 0, blindSource: 0, nearCopy: 0, malformed: 0 };
const out: Row[] = [];
for (const f of process.argv.slice(2)) {
  for (const r of readRows(f)) {
    const ok =
      typeof r.id === 'string' &&
      (r.label === 'malicious' || r.label === 'benign') &&
      CORPUS_CLASSES[r.label]?.includes(r.class ?? '') &&
      typeof r.group === 'string' &&
      typeof r.source === 'string' &&
      typeof r.licence === 'string' &&
      typeof r.tool?.name === 'string' &&
      !ids.has(r.id);
    if (!ok) {
      counts.malformed++;
      continue;
    }
    if (blindSources.has(repoOfGroup(r.group ?? ''))) {
      counts.blindSource++;
      continue;
    }
    const sh = shingles(textOf(r));
    if (nearCopy(kept, r.label, sh)) {
      counts.nearCopy++;
      continue;
    }
    kept.push({ label: r.label, sh });
    ids.add(r.id);
    out.push(r);
    counts.added++;
  }
}
if (out.length > 0) appendFileSync(new URL('train.jsonl', DIR), `${out.map((r) => JSON.stringify(r)).join('\n')}\n`);
const after = readFileSync(new URL('train.jsonl', DIR), 'utf8').split('\n').filter(Boolean).length;
console.log(`${JSON.stringify(counts)}; train.jsonl now ${after} rows (blind.jsonl untouched)`);
