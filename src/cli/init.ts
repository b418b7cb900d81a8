import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import { ensureSigningKey } from '../auth/keys.js';
import { lanesOfDomain } from '../policy/queries.js';
import { loadPolicy } from '../policy/load.js';
import { formatProblem } from '../policy/problem.js';
import { expandForLanes } from '../policy/placeholders.js';
import { writeStarter } from './init-starter.js';
import { commandName } from './find-policy.js';

/**
 * Prepares a policy's state: creates the state dir (0700) and the signing key, and with
 * --demo-secrets writes a random value into each MISSING secret file that lies inside the state
 * dir (never outside it, never over an existing file). Runs in its own process, so the front
 * never holds a private key or a secret value.
 */
export const prepareState = async (policyFile: string, demoSecrets: boolean): Promise<{ stateDir: string } | undefined> => {
  const { policy, problems } = loadPolicy(policyFile, { checkSecrets: false });
  if (!policy) {
    for (const p of problems) process.stderr.write(`${formatProblem(p)}\n`);
    process.stderr.write(`${problems.length} problem(s) in ${policyFile}; nothing was started\n`);
    return undefined;
  }
  const stateDir = policy.gateway.stateDir;
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  chmodSync(stateDir, 0o700);
  await ensureSigningKey(stateDir);
  if (!demoSecrets) return { stateDir };
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
  return { stateDir };
};

/**
 * `lanegate init --policy FILE`: the state of an existing policy. Serve runs it first, with
 * `loadResultFd`: once the state is ready, the policy's LoadResult (as `lanegate check` and the
 * validator child give it, secrets checked) is written there as JSON, so that serve's start needs
 * no second process to validate the policy.
 */
export const runInit = async (policyFile: string, demoSecrets: boolean, loadResultFd?: number): Promise<number> => {
  if (!(await prepareState(policyFile, demoSecrets))) return 1;
  if (loadResultFd !== undefined) await sendOn(loadResultFd, JSON.stringify(loadPolicy(policyFile)));
  return 0;
};

/** Writes `text` on an inherited descriptor (a pipe of the parent's) and closes it. */
const sendOn = (fd: number, text: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const out = new Socket({ fd, readable: false, writable: true });
    out.once('error', reject);
    out.end(text, () => resolve());
  });

/**
 * `lanegate init [DIR]`: a commented starter policy in DIR/lanegate.yaml (never over an existing
 * one), its state dir and signing key, and the next three commands to run.
 */
export const runInitDir = async (dir: string): Promise<number> => {
  const w = writeStarter(path.resolve(dir));
  if ('refused' in w) {
    process.stderr.write(`${w.refused}\n`);
    return 1;
  }
  const state = await prepareState(w.file, false);
  if (!state) return 1;
  const rel = path.relative(process.cwd(), w.file) || w.file;
  const flag = rel === 'lanegate.yaml' ? '' : ` --policy ${rel}`;
  const out = process.stdout;
  out.write(
    `wrote ${rel}: one shared trust domain (public) with the reference server "everything", one principal domain (personal), one lane (main)\n`,
  );
  out.write(`created ${path.relative(process.cwd(), state.stateDir) || state.stateDir}/ (0700) with a lane-token signing key\n\n`);
  const cmd = commandName();
  out.write('Next:\n');
  out.write(`  ${cmd} check${flag}          # validate the policy\n`);
  out.write(`  ${cmd} serve${flag}          # run it; prints the URL, the operator token file and each lane's client config\n`);
  out.write(`  ${cmd} token issue --lane main --format claude${flag}   # a token and config for one client\n`);
  return 0;
};
