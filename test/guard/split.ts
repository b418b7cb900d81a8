/**
 * Builds the guard corpus from staging files and freezes its blind split. Run once, before any
 * rule or model change (`node --import tsx test/guard/split.ts staging/*.jsonl`).
 *
 * 1. Rows are read in a fixed order: the old tuned-on sets first, then the staging files.
 * 2. Near-copies are dropped (same label, 5-word shingles with Jaccard >= 0.8 on the text
 *    with URLs, e-mail addresses and tool names masked); the first copy wins.
 * 3. The split is by GROUP (the source a row came from), never by row: a group is blind when
 *    sha256(SALT + group) falls under P. Groups the old sets already drew from stay in training
 *    (the rules were tuned on them). P starts at 0.30 and rises by 0.05 until the blind part
 *    holds >= 25 % of the malicious and of the benign rows: a rule fixed before any row is read.
 * 4. It writes train.jsonl, blind.jsonl and BLIND.md (the blind file's sha256, the counts, the
 *    rule). It prints nothing about the blind rows but their counts.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { groupOfSource, nearCopy, oldClass, readRows, repoOfGroup, type Row, shingles, textOf } from './corpus-tools.js';

const SALT = 'lanegate-blind-2026-12-01:';
const DIR = new URL('../fixtures/guard/', import.meta.url);

const old = [...readRows(new URL('corpus.jsonl', DIR)), ...readRows(new URL('holdout.jsonl', DIR))].map((r) => ({
  ...r,
  class: r.class ?? (r.label === 'benign' ? (r.technique.startsWith('hard-negative') ? 'hard-negative' : 'plain') : oldClass(r.technique)),
  group: groupOfSource(r.source),
  origin: 'tuned-on',
}));
const staged = process.argv.slice(2).flatMap((f) => readRows(f).map((r) => ({ ...r, origin: f.split('/').pop() ?? f })));

const kept: (Row & { origin: string; sh: Set<string> })[] = [];
let dropped = 0;
const ids = new Set<string>();
for (const r of [...old, ...staged]) {
  if (!r.group || !r.tool || typeof r.tool.name !== 'string' || (r.label !== 'malicious' && r.label !== 'benign')) {
    dropped++;
    continue;
  }
  const sh = shingles(textOf(r));
  if (nearCopy(kept, r.label, sh)) {
    dropped++;
    continue;
  }
  let id = r.id;
  for (let i = 2; ids.has(id); i++) id = `${r.id}~${i}`;
  ids.add(id);
  kept.push({ ...r, id, sh });
}

const oldRepos = new Set(old.map((r) => repoOfGroup(r.group)));
const u32 = (g: string): number =>
  createHash('sha256')
    .update(SALT + g)
    .digest()
    .readUInt32BE(0) /
  2 ** 32;
const eligible = (r: (typeof kept)[number]): boolean => r.origin !== 'tuned-on' && !oldRepos.has(repoOfGroup(r.group ?? ''));

let p = 0.3;
const isBlind = (r: (typeof kept)[number]): boolean => eligible(r) && u32(repoOfGroup(r.group ?? '')) < p;
const share = (label: string): number =>
  kept.filter((r) => r.label === label && isBlind(r)).length / kept.filter((r) => r.label === label).length;
while ((share('malicious') < 0.25 || share('benign') < 0.25) && p < 0.95) p += 0.05;

const strip = ({ sh, origin, ...r }: (typeof kept)[number]): Row => r;
const blind = kept.filter(isBlind).map(strip);
const train = kept.filter((r) => !isBlind(r)).map(strip);
const write = (name: string, rows: Row[]): string => {
  const text = `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
  writeFileSync(new URL(name, DIR), text);
  return createHash('sha256').update(text).digest('hex');
};
write('train.jsonl', train);
const hash = write('blind.jsonl', blind);
const count = (rows: Row[], label: string): number => rows.filter((r) => r.label === label).length;
const groups = (rows: Row[]): number => new Set(rows.map((r) => repoOfGroup(r.group ?? ''))).size;
writeFileSync(
  new URL('BLIND.md', DIR),
  `# The blind split

Frozen on ${new Date().toISOString().slice(0, 10)} by \`test/guard/split.ts\`, before any rule or model change made for
issue 11. Rule: a source (the repository or site a row came from: the part of its group before "#", without "variant:")
is blind when sha256("${SALT}" + source) / 2^32 < ${p.toFixed(2)};
groups the earlier, tuned-on sets drew from always train. Near-copies were removed before the split.

- blind.jsonl sha256: \`${hash}\`
- blind: ${count(blind, 'malicious')} malicious, ${count(blind, 'benign')} benign, ${groups(blind)} sources
- train: ${count(train, 'malicious')} malicious, ${count(train, 'benign')} benign, ${groups(train)} sources
- near-copies and malformed rows dropped: ${dropped}

Nobody tuning the guard reads blind.jsonl. \`npm run bench:guard -- --blind\` scores it (and refuses if
the file's hash differs from the one above), printing aggregates only, and appends one line to
\`blind-scores.log\`: the number of lines there is the number of times the blind split has been scored.
`,
);
console.log(
  `p=${p.toFixed(2)} blind ${count(blind, 'malicious')}/${count(blind, 'benign')} (${groups(blind)} sources) train ${count(train, 'malicious')}/${count(train, 'benign')} dropped ${dropped}`,
);
