// The published MCP server the suite starts most, server-everything, run from one file: the test
// runner (test/run.mjs) bundles the installed package's own code with its dependencies (the MCP SDK,
// zod, express, jszip), unchanged, and the tests' helper (EVERYTHING in test/helpers/gateway.ts)
// points there for the run. A full run starts it ~200 times (every gateway that measures it spawns
// about seven: the pre-flight's two, the demonstration's, the children); from node_modules each
// start cost ~0.33 s of CPU, ~0.22 s from one file (interleaved, six each, /usr/bin/time), because
// Node's ESM loader resolves and compiles several hundred files per start. What runs is the same
// server: its surface, answers and version are the package's (its package.json is copied beside
// the bundle, so the launch fingerprint still reads server-everything@<version>, and its docs,
// which it reads at start relative to its own file, are copied where the bundle looks for them).
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const EVERYTHING = '@modelcontextprotocol/server-everything';

/**
 * Bundles server-everything under `outdir`/published and returns the bundle's entry (a drop-in for
 * the package's dist/index.js). Its files read `../docs` from dist/<dir>/, which is dist/docs; from
 * the one file at <out>/dist/index.js that is <out>/docs.
 */
export const bundleEverything = async (root, outdir) => {
  const pkg = path.join(root, 'node_modules', EVERYTHING);
  const out = path.join(outdir, 'published', 'server-everything');
  mkdirSync(path.join(out, 'dist'), { recursive: true });
  const entry = path.join(out, 'dist', 'index.js');
  await build({
    absWorkingDir: root,
    entryPoints: [path.join(pkg, 'dist', 'index.js')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    // The CommonJS libraries inlined into ESM (express) require node's own modules.
    banner: {
      js: "import { createRequire as __publishedRequire } from 'node:module'; const require = __publishedRequire(import.meta.url);",
    },
  });
  cpSync(path.join(pkg, 'package.json'), path.join(out, 'package.json'));
  cpSync(path.join(pkg, 'dist', 'docs'), path.join(out, 'docs'), { recursive: true });
  return entry;
};
