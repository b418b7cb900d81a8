import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureSigningKey } from '../auth/keys.js';
import { lanesOfDomain } from '../policy/queries.js';
import { loadPolicy } from '../policy/load.js';
import { formatProblem } from '../policy/problem.js';
import { expandForLanes } from '../policy/placeholders.js';

/**
 * `lanegate init`: creates the state dir (0700) and the signing key, and with --demo-secrets
 * writes a random value into each MISSING secret file that lies inside the state dir (never
 * outside it, never over an existing file). Runs in its own process, so the front never holds
 * a private key or a secret value.
 */
export const runInit = async (policyFile: string, demoSecrets: boolean): Promise<number> => {
  const { policy, problems } = loadPolicy(policyFile, { checkSecrets: false });
  if (!policy) {
    for (const p of problems) process.stderr.write(`${formatProblem(p)}\n`);
    process.stderr.write(`${problems.length} problem(s) in ${policyFile}; nothing was started\n`);
    return 1;
  }
  const stateDir = policy.gateway.stateDir;
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  chmodSync(stateDir, 0o700);
  await ensureSigningKey(stateDir);
  if (!demoSecrets) return 0;
  for (const d of Object.values(policy.domains)) {
    const lanes = lanesOfDomain(policy, d.name);
    for (const ref of d.secrets) {
      for (const f of expandForLanes(ref.file, lanes)) {
        if (!f.startsWith(stateDir + path.sep) || existsSync(f)) continue;
        mkdirSync(path.dirname(f), { recursive: true, mode: 0o700 });
        writeFileSync(f, `demo-${randomBytes(16).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
        process.stderr.write(`created demo secret file ${path.relative(process.cwd(), f)}\n`);
      }
    }
  }
  return 0;
};
