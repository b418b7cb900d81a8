#!/usr/bin/env node
// The `lanegate` command (package.json "bin"; `npx lanegate`, `npm link`, `npm install -g`).
// Committed, so it exists right after `npm install` in a clone, where dist/ does not yet: npm 11
// runs no install scripts unless approved, so no `prepare` step can be relied on to build it.
// It bundles dist/ (esbuild, a second or two) when dist/ is missing or older than src/, then runs
// the built CLI. Build output goes to stderr: stdout stays the command's own (token issue --quiet).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// src/bin/lanegate.js: the package root is two folders up (the top level of the repository is fixed).
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const entry = path.join(root, 'dist', 'cli', 'main.js');
const src = path.join(root, 'src');

/** The newest modification time under dir (bounded: src/ holds a few hundred files). */
const newest = (dir, depth = 0) => {
  let t = 0;
  if (depth > 8) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p, depth + 1) : statSync(p).mtimeMs);
  }
  return t;
};

const stale = () => {
  if (!existsSync(entry)) return true;
  if (!existsSync(src)) return false;
  return newest(src) > statSync(entry).mtimeMs;
};

if (stale()) {
  const esbuild = path.join(root, 'node_modules', 'esbuild');
  if (!existsSync(esbuild)) {
    process.stderr.write(
      `lanegate: ${path.relative(process.cwd(), entry) || entry} is missing and esbuild is not installed; run npm install && npm run build in ${root}\n`,
    );
    process.exit(1);
  }
  process.stderr.write('lanegate: building dist/ (first run, or src/ changed) ...\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['run', '--silent', 'bundle'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0 || !existsSync(entry)) {
    process.stderr.write(`lanegate: the build failed; run npm run build in ${root} to see why\n`);
    process.exit(1);
  }
}

// `npx lanegate --help | head` closes the pipe early: that ends the output, not in a stack trace.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

await import(pathToFileURL(entry).href);
