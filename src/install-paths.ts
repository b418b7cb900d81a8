import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where lanegate is installed, found from this code's own location by walking up to the
 * package.json named "lanegate". The build bundles each process's code into a few files under
 * dist/ (one for a host), so a module can no longer name a sibling relative to itself; every
 * process entry is named here instead, from the package root, whether this code runs bundled
 * from dist/ or from src/ under tsx (tests), where it names the built entries.
 */
const findRoot = (): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'lanegate') return dir;
    dir = path.dirname(dir);
  }
  throw new Error('lanegate: cannot find its package.json above its own code');
};

const ROOT = findRoot();

/**
 * lanegate's version, read once from package.json when a process starts: the one place it comes
 * from (the CLI's --version, the front's serverInfo, the clientInfo lanegate gives upstreams and hosts).
 */
export const VERSION: string = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The process entry points the build writes, each started with `node <file>`. */
export const ENTRIES = {
  cli: path.join(ROOT, 'dist/cli/main.js'),
  host: path.join(ROOT, 'dist/host/entry.js'),
  policyLoad: path.join(ROOT, 'dist/policy/load-entry.js'),
} as const;
