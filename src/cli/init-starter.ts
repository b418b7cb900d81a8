import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ENTRIES } from '../install-paths.js';
import { type StarterLaunch, starterPolicy } from './starter-policy.js';

/** How the starter launches the reference server: from lanegate's own install when it has it, else npx. */
const referenceLaunch = (): StarterLaunch => {
  try {
    const req = createRequire(ENTRIES.cli);
    const pkg = req.resolve('@modelcontextprotocol/server-everything/package.json');
    const entry = path.join(path.dirname(pkg), 'dist/index.js');
    if (existsSync(entry)) return { command: { key: 'node', path: '{node}' }, args: [entry, 'stdio'] };
  } catch {
    // not installed beside lanegate (a production install): fetched by npx at first launch
  }
  const npx = process.env.PATH?.split(path.delimiter)
    .map((d) => path.join(d, 'npx'))
    .find((p) => existsSync(p));
  return { command: { key: 'npx', path: npx ?? '/usr/bin/npx' }, args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'] };
};

/**
 * `lanegate init [DIR]`: writes DIR/lanegate.yaml (a commented starter that passes check) unless
 * it exists, and returns the policy file for the caller to prepare (state dir, keys).
 */
export const writeStarter = (dir: string): { file: string } | { refused: string } => {
  const file = path.join(dir, 'lanegate.yaml');
  if (existsSync(file)) return { refused: `${file} exists; lanegate init never overwrites a policy (edit it, or init another directory)` };
  mkdirSync(dir, { recursive: true });
  // 'wx': a file created between the check and here is not overwritten either.
  writeFileSync(file, starterPolicy(referenceLaunch(), 8750), { flag: 'wx', mode: 0o644 });
  return { file };
};
