import { spawn } from 'node:child_process';
import { ENTRIES } from '../install-paths.js';
import type { LoadResult } from '../policy/load.js';
import { readLoadAnswer, validatorFailed } from '../policy/load-isolated.js';

/** The descriptor the init child writes the policy's load result on (its stdio's fourth entry). */
const RESULT_FD = 3;

/**
 * Serve's first step, in a process of its own (keys and secrets never enter the front): `lanegate
 * init` prepares the policy's state, then validates the policy and hands back its LoadResult on a
 * pipe. One child instead of two (init, then the validator of load-isolated.ts): the front still
 * never loads the schema library or the YAML parser. Undefined when init failed (it has said why
 * on stderr); a result that does not arrive whole is a load that failed, never a policy.
 */
export const initAndLoad = (policyFile: string, demoSecrets: boolean): Promise<LoadResult | undefined> =>
  new Promise((resolve) => {
    const args = ['init', '--policy', policyFile, ...(demoSecrets ? ['--demo-secrets'] : []), '--load-result-fd', String(RESULT_FD)];
    const child = spawn(process.execPath, [ENTRIES.cli, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'pipe'] });
    const out: Buffer[] = [];
    child.stdio[RESULT_FD]?.on('data', (c: Buffer) => out.push(c));
    child.once('error', () => resolve(undefined));
    child.once('close', (code) => {
      if (code !== 0) return resolve(undefined);
      const r = readLoadAnswer(Buffer.concat(out).toString('utf8'));
      resolve(typeof r === 'string' ? validatorFailed(policyFile, r) : r);
    });
  });
