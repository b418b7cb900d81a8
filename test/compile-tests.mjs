// Compiles the test files for the runner (test/run.mjs): TypeScript to plain ESM with esbuild, so
// that each test process runs on plain node instead of loading tsx. Under tsx every module a test
// process loads goes through its loader hooks, node_modules' too: an integration file's helpers
// and the MCP SDK cost ~1.1 s of CPU to load that way against ~0.45 s compiled (measured with
// /usr/bin/time on this 2-core machine), and the suite starts ~60 such processes.
//
// The files are bundled as one build with shared chunks (a module imported by several test files
// is one chunk, loaded once per process as before); packages stay external and resolve from
// node_modules as they did. The output lives under the repository (test/.compiled-*), so those
// imports find the same node_modules. Each module's `import.meta.url` is replaced by its source
// file's URL, so paths a test builds from it (the repository root, fixtures, the CLI) are the same
// as under tsx.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const COMMON = {
  bundle: true,
  packages: 'external',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // Inline, for the test processes' --enable-source-maps: a failure's stack names the .ts line.
  sourcemap: 'inline',
  logLevel: 'warning',
};

const rooted = (root) => ({ absWorkingDir: root, tsconfig: path.join(root, 'test/tsconfig.json') });

/** A dynamic import of a relative path with a query, e.g. import(`../x.js?t=${Date.now()}`): a fresh instance. */
const FRESH_IMPORT = /import\(`(\.{1,2}\/[^`?$]+)\?([^`]*)`\)/g;

/**
 * Keeps each source file's own import.meta.url (its location under test/ or src/) in the bundle,
 * and keeps a fresh-instance import fresh: a test that sets the environment and then imports a
 * module with a query (a new URL, so a new instance that reads the environment again) gets a
 * bundle of that module of its own under `outdir`/fresh, imported at run time with the same query.
 */
const sourcesKept = (root, outdir) => ({
  name: 'sources-kept',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      let text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url') && !text.match(FRESH_IMPORT)) return undefined;
      text = text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      for (const [whole, rel, query] of [...text.matchAll(FRESH_IMPORT)]) {
        const target = path.resolve(path.dirname(args.path), rel);
        const source = existsSync(target) ? target : target.replace(/\.([cm]?)js$/, '.$1ts');
        const outfile = path.join(outdir, 'fresh', `${path.relative(root, source)}.mjs`);
        await build({ ...COMMON, ...rooted(root), entryPoints: [source], outfile, plugins: [sourcesKept(root, outdir)] });
        text = text.replace(whole, `import(\`${pathToFileURL(outfile).href}?${query}\`)`);
      }
      return { contents: text, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
});

/**
 * Compiles `entries` (`{ in, out }`: a source file's absolute path, or an .mjs entry that imports
 * some by absolute path, and its output name relative to `outdir` without extension) into `outdir`,
 * a directory under the repository, and returns each entry's compiled file by its source path.
 */
export const compileTests = async (root, entries, outdir) => {
  const result = await build({
    ...COMMON,
    ...rooted(root),
    entryPoints: entries,
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    plugins: [sourcesKept(root, outdir)],
  });
  const compiled = new Map();
  for (const [out, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint) compiled.set(path.resolve(root, meta.entryPoint), path.resolve(root, out));
  }
  return compiled;
};
