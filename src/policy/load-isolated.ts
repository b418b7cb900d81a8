import { spawn } from 'node:child_process';
import { ENTRIES } from '../install-paths.js';
import type { LoadResult } from './load.js';

/** Longer than any policy takes to validate; a child past it is killed and the load fails. */
const LOAD_TIMEOUT_MS = 30_000;

/** What a validator child wrote (a LoadResult as JSON), or why it is not one. */
export const readLoadAnswer = (text: string): LoadResult | string => {
  let r: unknown;
  try {
    r = JSON.parse(text);
  } catch {
    return 'validator answered no JSON';
  }
  return r !== null && typeof r === 'object' && Array.isArray((r as LoadResult).problems)
    ? (r as LoadResult)
    : 'validator answered something else';
};

/** A load that failed because its validator did (never a policy). */
export const validatorFailed = (file: string, why: string): LoadResult => ({
  problems: [{ file, line: 1, col: 1, path: '(file)', message: `the policy could not be validated (${why})` }],
});

/**
 * Loads and validates a policy in a short-lived child process, so the front never loads the
 * schema library or the YAML parser (about 10 MB of the front's memory, held for its whole life,
 * for something done at start and reload). The child's answer is the same LoadResult as
 * loadPolicy's; a child that fails in any way is a load that failed, never a policy.
 */
export const loadPolicyIsolated = (file: string): Promise<LoadResult> =>
  new Promise((resolve) => {
    const fail = (why: string): void => resolve(validatorFailed(file, why));
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
      const r = readLoadAnswer(Buffer.concat(out).toString('utf8'));
      if (typeof r !== 'string') return resolve(r);
      fail(r === 'validator answered no JSON' ? `${r}: ${Buffer.concat(err).toString('utf8').slice(0, 200)}` : r);
    });
  });
