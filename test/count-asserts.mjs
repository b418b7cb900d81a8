// Counts the suite's tests and assertions per file, statically: `test(`/`it(` calls with a name,
// and `assert.*` calls. Run it before and after changing the suite to show the same properties are
// still asserted: node test/count-asserts.mjs [root]. (The runner's own count is its `tests N` line.)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.argv[2] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const total = { files: 0, tests: 0, asserts: 0 };
for (const dir of ['test/unit', 'test/integration']) {
  for (const f of readdirSync(path.join(root, dir))
    .filter((n) => n.endsWith('.test.ts'))
    .sort()) {
    const src = readFileSync(path.join(root, dir, f), 'utf8');
    const tests = (src.match(/\b(?:test|it)(?:\.\w+)?\(\s*['"`]/g) ?? []).length;
    const asserts = (src.match(/\bassert\.\w+/g) ?? []).length;
    console.log(`${dir}/${f}\t${tests}\t${asserts}`);
    total.files += 1;
    total.tests += tests;
    total.asserts += asserts;
  }
}
console.log(`TOTAL files=${total.files} tests=${total.tests} asserts=${total.asserts}`);
