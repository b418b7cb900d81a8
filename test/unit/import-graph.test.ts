import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { crossings, findCycles, type Graph, importGraph, specifiersOf } from '../helpers/import-graph.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const graph = importGraph(join(repo, 'src'), repo);

describe('the import reader', () => {
  it('reads every form of import and re-export, type-only and dynamic ones included', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {\n  c,\n  type C,\n} from "./c.js";',
      "export { d } from './d.js';",
      "export type { E } from './e.js';",
      "export * from './f.js';",
      "import './g.js';",
      "const h = await import('./h.js');",
      "type I = typeof import('./i.js');",
      "import { j as k, l } from 'node:fs';",
    ].join('\n');
    assert.deepEqual(specifiersOf(text).sort(), [
      '../b.js',
      './a.js',
      './c.js',
      './d.js',
      './e.js',
      './f.js',
      './g.js',
      './h.js',
      './i.js',
      'node:fs',
    ]);
  });

  it('does not take an import written in a comment, a string, a template or a regex for an edge', () => {
    const text = [
      "// import { x } from './comment.js';",
      "/* export * from './block.js'; */",
      'const s = "import { y } from \'./string.js\'";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the string is source text holding a template literal
      "const t = `import { z } from './template.js' ${1 + 1}`;",
      'const r = /import [\'"]/;',
      "const q = 'it\\'s'; import { real } from './real.js';",
    ].join('\n');
    assert.deepEqual(specifiersOf(text), ['./real.js']);
  });

  it('finds a circle and names its path; a graph without one passes', () => {
    const circular: Graph = new Map([
      ['src/a.ts', ['src/b.ts']],
      ['src/b.ts', ['src/c.ts']],
      ['src/c.ts', ['src/a.ts', 'src/d.ts']],
      ['src/d.ts', []],
      ['src/e.ts', ['src/e.ts']],
    ]);
    assert.deepEqual(findCycles(circular).sort(), [
      ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts'],
      ['src/e.ts', 'src/e.ts'],
    ]);
    const acyclic: Graph = new Map([
      ['src/a.ts', ['src/b.ts', 'src/c.ts']],
      ['src/b.ts', ['src/c.ts']],
      ['src/c.ts', []],
    ]);
    assert.deepEqual(findCycles(acyclic), []);
  });

  it('names an import from front into host, and not one into link', () => {
    const crossing: Graph = new Map([
      ['src/front/a.ts', ['src/link/protocol.ts', 'src/host/slot.ts']],
      ['src/host/slot.ts', ['src/link/protocol.ts']],
      ['src/frontier/b.ts', ['src/host/slot.ts']],
      ['src/link/protocol.ts', []],
    ]);
    assert.deepEqual(crossings(crossing, 'src/front', 'src/host'), ['src/front/a.ts -> src/host/slot.ts']);
    assert.deepEqual(crossings(crossing, 'src/host', 'src/front'), []);
  });

  it('reads the real sources: every file is in the graph with its edges', () => {
    assert.ok(graph.size > 100, `only ${graph.size} files read`);
    assert.ok((graph.get('src/front/gateway.ts') ?? []).length > 5, 'gateway.ts imports nothing?');
    for (const [from, edges] of graph) {
      for (const to of edges) assert.ok(graph.has(to) || !to.startsWith('src/'), `${from} imports ${to}, which does not exist`);
    }
  });
});

describe('the shape of src/', () => {
  it('has no import circle, type-only imports included', () => {
    const cycles = findCycles(graph);
    assert.deepEqual(
      cycles.map((path) => path.join(' -> ')),
      [],
      'import circles in src/',
    );
  });

  it('front and host never import each other: they meet only in src/link', () => {
    assert.deepEqual(crossings(graph, 'src/front', 'src/host'), [], 'front imports host');
    assert.deepEqual(crossings(graph, 'src/host', 'src/front'), [], 'host imports front');
  });

  it('the link contract imports neither side', () => {
    assert.deepEqual([...crossings(graph, 'src/link', 'src/front'), ...crossings(graph, 'src/link', 'src/host')], []);
  });
});
