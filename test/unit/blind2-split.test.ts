import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { scorePerLane, scorePerTool, unjudged } from '../bench/guard-blind2.js';
import { type Blind2Entry, loadSplit } from '../helpers/blind2.js';
import { CORPUS_CLASSES } from '../helpers/corpus.js';

const dir = mkdtempSync(join(tmpdir(), 'lanegate-blind2-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const row = (id: string, label: 'benign' | 'malicious', lane: string, server: string, name: string, description: string): Blind2Entry => ({
  id,
  label,
  class: label === 'benign' ? 'plain' : 'directive',
  technique: 'unit test',
  source: 'variant: unit test',
  group: `variant:unit#${server}`,
  licence: 'MIT',
  lane,
  server,
  tool: { name, description, inputSchema: { type: 'object', properties: {} } },
});
const ROWS = [
  row('u-1', 'benign', 'l1', 'clock', 'now', 'Returns the current time.'),
  row('u-2', 'benign', 'l1', 'clock', 'zones', 'Lists time zone names.'),
  row('u-3', 'benign', 'l2', 'math', 'add', 'Adds two numbers.'),
  row('u-4', 'benign', 'l1', 'notes', 'list_notes', 'Lists saved notes.'),
];
const file = join(dir, 'split.jsonl');
writeFileSync(file, `${ROWS.map((r) => JSON.stringify(r)).join('\n')}\n`);
const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
const lines = (f: string): number => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0);

describe('the second blind split: loading and counting', () => {
  it('loads a split whose hash is the recorded one, and logs one line per scoring', () => {
    const sums = join(dir, 'OK.md');
    const log = join(dir, 'ok.log');
    writeFileSync(sums, `- blind2.jsonl sha256: \`${sha}\`\n`);
    const a = loadSplit(file, sums, log, 'first');
    assert.equal(a.frozen, true);
    assert.equal(a.sha256, sha);
    assert.deepEqual(
      a.rows.map((r) => r.id),
      ROWS.map((r) => r.id),
    );
    assert.equal(lines(log), 1);
    loadSplit(file, sums, log, 'second');
    assert.equal(lines(log), 2);
  });

  it('refuses a split whose hash differs, and logs nothing', () => {
    const sums = join(dir, 'BAD.md');
    const log = join(dir, 'bad.log');
    writeFileSync(sums, `- blind2.jsonl sha256: \`${'0'.repeat(64)}\`\n`);
    assert.throws(() => loadSplit(file, sums, log, 'x'), /not the frozen split/);
    writeFileSync(sums, 'no hash recorded\n');
    assert.throws(() => loadSplit(file, sums, log, 'x'), /not the frozen split/);
    assert.equal(lines(log), 0);
  });

  it('an override (no record) reports its hash and is not marked frozen', () => {
    const log = join(dir, 'override.log');
    const l = loadSplit(file, undefined, log, 'override');
    assert.equal(l.frozen, false);
    assert.equal(l.sha256, sha);
    assert.equal(lines(log), 1);
  });
});

describe('the second blind split: scoring shapes', () => {
  it('scores every row once, in order, per tool and per lane', () => {
    for (const scored of [scorePerTool(ROWS), scorePerLane(ROWS)]) {
      assert.deepEqual(
        scored.map((s) => s.e.id),
        ROWS.map((r) => r.id),
      );
      for (const s of scored) assert.equal(typeof s.guard, 'boolean');
    }
    assert.equal(unjudged, 0);
  });

  it('finds the verdict of a tool whose name has look-alike letters or control characters', () => {
    const odd = [
      row('o-1', 'benign', 'l1', 'a', 'x\uff0dy', 'Lists things.'),
      row('o-2', 'benign', 'l1', 'a', '\u0261o', 'Goes.'),
      row('o-3', 'benign', 'l1', 'b', 'tab\tname', 'Tab in its name.'),
      row('o-4', 'benign', 'l1', 'b', 'nl\nname', 'Newline in its name.'),
    ];
    assert.equal(scorePerLane(odd).length, odd.length);
    assert.equal(unjudged, 0);
  });
});

describe('the committed blind2.jsonl (hashed and checked for shape only: never scored here)', () => {
  const url = new URL('../fixtures/guard/blind2.jsonl', import.meta.url);
  const text = readFileSync(url, 'utf8');

  it('is the file BLIND2.md froze', () => {
    const want = /sha256: `([0-9a-f]{64})`/.exec(readFileSync(new URL('../fixtures/guard/BLIND2.md', import.meta.url), 'utf8'))?.[1];
    assert.equal(createHash('sha256').update(text).digest('hex'), want);
  });

  it('is well formed: unique ids, known labels and classes, a lane of two or more servers for every row', () => {
    const rows = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Blind2Entry);
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length);
    const servers = new Map<string, Set<string>>();
    for (const r of rows) {
      assert.ok(CORPUS_CLASSES[r.label]?.includes(r.class), `${r.id}: class`);
      assert.ok(r.lane && r.server && r.group && r.source && r.licence, `${r.id}: provenance`);
      assert.equal(typeof r.tool.name, 'string', `${r.id}: tool name`);
      if (r.label === 'malicious') assert.ok(r.issueClass, `${r.id}: issue class`);
      servers.set(r.lane, (servers.get(r.lane) ?? new Set()).add(r.server));
    }
    for (const [lane, s] of servers) assert.ok(s.size >= 2, `lane ${lane} has one server`);
  });
});
