import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = process.env.LANEGATE_LENGTH_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** About 300 lines is one concept a reader holds at once; 320 leaves room for a comment, not a second concept. */
const MAX_LINES = 320;
/**
 * Files known to be longer while a split is on its way (none now: src/front/gateway.ts was split).
 * An entry here that is no longer long is not a failure; a new long file is.
 */
const PENDING = new Set<string>();

/** Lines of a text as `wc -l` counts them (newlines; a last line without one counts too). */
const linesOf = (text: string): number => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

/** Every source file under `dir` (relative to `root`, sorted), with its line count. */
const fileLengths = (root: string, dir: string): { file: string; lines: number }[] =>
  readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(?:[cm]?[jt]s)$/.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort()
    .map((file) => ({ file, lines: linesOf(readFileSync(path.join(root, file), 'utf8')) }));

const over = (all: { file: string; lines: number }[], pending: ReadonlySet<string>): string[] =>
  all.filter((f) => f.lines > MAX_LINES && !pending.has(f.file)).map((f) => `${f.file} (${f.lines} lines)`);

describe('file length in src/', () => {
  it('counts lines as wc -l does, and finds a long file anywhere under the tree', () => {
    assert.equal(linesOf(''), 0);
    assert.equal(linesOf('a\nb\n'), 2);
    assert.equal(linesOf('a\nb'), 2);
    const dir = mkdtempSync(path.join(tmpdir(), 'lg-file-length-'));
    try {
      mkdirSync(path.join(dir, 'src/deep/er'), { recursive: true });
      writeFileSync(path.join(dir, 'src/deep/er/long.ts'), 'x\n'.repeat(MAX_LINES + 1));
      writeFileSync(path.join(dir, 'src/at-limit.mjs'), 'x\n'.repeat(MAX_LINES));
      writeFileSync(path.join(dir, 'src/notes.md'), 'x\n'.repeat(MAX_LINES * 2));
      const found = fileLengths(dir, 'src');
      assert.deepEqual(
        found.map((f) => f.file),
        ['src/at-limit.mjs', 'src/deep/er/long.ts'],
      );
      assert.deepEqual(over(found, new Set()), [`src/deep/er/long.ts (${MAX_LINES + 1} lines)`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const all = fileLengths(ROOT, 'src');

  it('sees the files it measures (a listing that found nothing would pass anything)', () => {
    assert.ok(all.length > 200, `only ${all.length} files found`);
    const slot = all.find((f) => f.file === 'src/host/slot.ts');
    assert.ok(slot && slot.lines > 100, JSON.stringify(slot));
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    assert.deepEqual(over(all, PENDING), []);
  });
});
