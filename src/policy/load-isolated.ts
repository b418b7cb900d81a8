import { spawn } from 'node:child_process';
import { ENTRIES } from '../install-paths.js';
import type { LoadResult } from './load.js';

/** Longer than any policy takes to validate; a child past it is killed and the load fails. */
const LOAD_TIMEOUT_MS = 30_000;

/**
 * Loads and validates a policy in a short-lived child process, so the front never loads the
 * schema library or the YAML parser (about 10 MB of the front's memory, held for its whole life,
 * for something done at start and reload). The child's answer is the same LoadResult as
 * loadPolicy's; a child that fails in any way is a load that failed, never a policy.
 */
export const loadPolicyIsolated = (file: string): Promise<LoadResult> =>
  new Promise((resolve) => {
    const fail = (why: string): void =>
      resolve({ problems: [{ file, line: 1, col: 1, path: '(file)', message: `the policy could not be validated (${why})` }] });
    const child = spawn(process.execPath, [ENTRIES.policyLoad, file], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), LOAD_TIMEOUT_MS);
    child.once('error', (e) => {
      clearTimeout(timer);
      fail(e.message);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return fail(signal ? `validator ended by ${signal}` : `validator exit code ${String(code)}`);
      try {
        const r = JSON.parse(Buffer.concat(out).toString('utf8')) as LoadResult;
        if (!Array.isArray(r.problems)) return fail('validator answered something else');
        resolve(r);
      } catch {
        fail(`validator answered no JSON: ${Buffer.concat(err).toString('utf8').slice(0, 200)}`);
      }
    });
  });
