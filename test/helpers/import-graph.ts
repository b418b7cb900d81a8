// The import graph of the TypeScript sources, read from the text: every `import … from`, `export … from`,
// side-effect `import '…'`, `import type`, `typeof import('…')` and dynamic `import('…')` whose specifier is
// relative. A small scanner skips comments, string contents, template literals and regex literals, so
// an import written inside a string or a comment is not an edge. Relative `.js` specifiers resolve to the
// `.ts` file beside them (NodeNext style); bare specifiers (packages, node:) are not part of the graph.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type Graph = Map<string, string[]>;

/** The code with comments removed and each string/template literal replaced by `"#n"`, plus the literals. */
export function maskSource(text: string): { code: string; strings: string[] } {
  const strings: string[] = [];
  let out = '';
  let i = 0;
  let lastSignificant = '';
  let lastWord = '';
  const regexAfterWord = new Set([
    'return',
    'typeof',
    'case',
    'do',
    'else',
    'in',
    'of',
    'new',
    'delete',
    'void',
    'throw',
    'yield',
    'await',
  ]);
  const n = text.length;
  while (i < n) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      out += ' ';
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let value = '';
      while (j < n && text[j] !== c && text[j] !== '\n') {
        if (text[j] === '\\') {
          value += text[j + 1] ?? '';
          j += 2;
        } else value += text[j++];
      }
      strings.push(value);
      out += `"#${strings.length - 1}"`;
      i = j + 1;
      lastSignificant = '"';
      lastWord = '';
      continue;
    }
    if (c === '`') {
      i = skipTemplate(text, i + 1);
      out += '""';
      lastSignificant = '"';
      lastWord = '';
      continue;
    }
    if (c === '/' && (lastSignificant === '' || '(,=:[!&|?{};+-*%<>~^'.includes(lastSignificant) || regexAfterWord.has(lastWord))) {
      let j = i + 1;
      let inClass = false;
      while (j < n && text[j] !== '\n') {
        const d = text[j];
        if (d === '\\') j += 2;
        else {
          if (d === '[') inClass = true;
          else if (d === ']') inClass = false;
          else if (d === '/' && !inClass) break;
          j++;
        }
      }
      j++;
      while (j < n && /[a-z]/i.test(text[j] as string)) j++;
      out += '/r/';
      i = j;
      lastSignificant = 'r';
      lastWord = '';
      continue;
    }
    out += c;
    if (/[A-Za-z0-9_$]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_$]/.test(text[j] as string)) j++;
      lastWord = text.slice(i, j);
      out += text.slice(i + 1, j);
      lastSignificant = 'w';
      i = j;
      continue;
    }
    if (!/\s/.test(c)) {
      lastSignificant = c === ')' || c === ']' ? 'w' : c;
      lastWord = '';
    }
    i++;
  }
  return { code: out, strings };
}

/** Index just past the closing backtick of a template literal opened before `start`. */
function skipTemplate(text: string, start: number): number {
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '`') return i + 1;
    else if (c === '$' && text[i + 1] === '{') {
      // Skip the expression by brace depth; nested templates and strings inside it are skipped too.
      i += 2;
      let depth = 1;
      while (i < text.length && depth > 0) {
        const d = text[i];
        if (d === '`') i = skipTemplate(text, i + 1);
        else if (d === "'" || d === '"') {
          i++;
          while (i < text.length && text[i] !== d) i += text[i] === '\\' ? 2 : 1;
          i++;
        } else {
          if (d === '{') depth++;
          else if (d === '}') depth--;
          i++;
        }
      }
    } else i++;
  }
  return i;
}

/** The module specifiers a source file names (static, type-only, re-export, side-effect and dynamic). */
export function specifiersOf(text: string): string[] {
  const { code, strings } = maskSource(text);
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\b[^;"]*?\bfrom\s*"#(\d+)"/g, /\bimport\s*"#(\d+)"/g, /\bimport\s*\(\s*"#(\d+)"/g];
  for (const pattern of patterns) {
    for (const m of code.matchAll(pattern)) found.push(strings[Number(m[1])] as string);
  }
  return found;
}

/** The `.ts` file a relative specifier names, from the importing file; undefined for a bare specifier. */
export function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const target = resolve(dirname(fromFile), specifier);
  return target.endsWith('.js') ? `${target.slice(0, -3)}.ts` : target;
}

function tsFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files.sort();
}

/** The graph of every `.ts` file under root, keyed by path relative to `base`, edges sorted. */
export function importGraph(root: string, base: string): Graph {
  const graph: Graph = new Map();
  for (const file of tsFiles(root)) {
    const edges = new Set<string>();
    for (const spec of specifiersOf(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, spec);
      if (target) edges.add(relative(base, target));
    }
    graph.set(relative(base, file), [...edges].sort());
  }
  return graph;
}

/**
 * Every strongly connected set of two or more files (or a file importing itself), each reported as one
 * concrete cycle path `a -> b -> … -> a`. Tarjan's algorithm, iterative so depth is bounded by the heap.
 */
export function findCycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++] as string;
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component);
      }
    }
  }
  return components.map((component) => cycleWithin(graph, new Set(component)));
}

/** One concrete cycle through the first (sorted) member of a strongly connected set: breadth-first back to it. */
function cycleWithin(graph: Graph, members: Set<string>): string[] {
  const start = [...members].sort()[0] as string;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] as string;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = cameFrom.get(at)) path.splice(1, 0, at);
        path.push(start);
        return path;
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** Edges from a file under `fromDir` to a file under `toDir` (paths as keyed in the graph). */
export function crossings(graph: Graph, fromDir: string, toDir: string): string[] {
  const out: string[] = [];
  const under = (path: string, dir: string) => path.startsWith(`${dir}/`);
  for (const [from, edges] of graph) {
    if (!under(from, fromDir)) continue;
    for (const to of edges) if (under(to, toDir)) out.push(`${from} -> ${to}`);
  }
  return out;
}
