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
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** Keeps each source file's own import.meta.url (its location under test/ or src/) in the bundle. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const loader = /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader };
    });
  },
};

/**
 * Compiles `entries` (`{ in, out }`: a source file's absolute path, or an .mjs entry that imports
 * some by absolute path, and its output name relative to `outdir` without extension) into `outdir`,
 * a directory under the repository, and returns each entry's compiled file by its source path.
 */
export const compileTests = async (root, entries, outdir) => {
  const result = await build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    packages: 'external',
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // Inline, for the test processes' --enable-source-maps: a failure's stack names the .ts line.
    sourcemap: 'inline',
    logLevel: 'warning',
    metafile: true,
    tsconfig: path.join(root, 'test/tsconfig.json'),
    plugins: [sourceUrls],
  });
  const compiled = new Map();
  for (const [out, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint) compiled.set(path.resolve(root, meta.entryPoint), path.resolve(root, out));
  }
  return compiled;
};
