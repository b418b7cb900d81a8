// The bundle step of the build (`npm run build` = tsc's type check, then `node src/build.mjs --clean`;
// `npm run bundle` and the launcher src/bin/lanegate.js run it without --clean). It lives in src/
// because the container build copies only src/ and tsconfig.json.
//
// Each process's code is bundled with its libraries: Node's ESM loader costs memory per file it
// loads, so a bundled host starts smaller. The host is one file of its own; the CLI (front), the
// policy loader entry and the demo server share chunks. `require` is provided for the CommonJS
// libraries esbuild inlines into ESM output.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Paths are relative to the package root, as esbuild's command line ran them from there.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const shared = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __lanegateRequire } from 'node:module'; const require = __lanegateRequire(import.meta.url);" },
};

if (process.argv.includes('--clean')) rmSync(path.join(root, 'dist'), { recursive: true, force: true });

await Promise.all([
  build({ ...shared, entryPoints: ['src/host/entry.ts'], outfile: 'dist/host/entry.js' }),
  build({
    ...shared,
    entryPoints: ['src/cli/main.ts', 'src/policy/load-entry.ts', 'src/demo/mailbox-server.ts'],
    splitting: true,
    outbase: 'src',
    outdir: 'dist',
    chunkNames: 'chunks/[name]-[hash]',
  }),
]);
