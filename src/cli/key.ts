import { listKeys, rotateKeys } from '../auth/keys.js';
import { parseDuration } from '../auth/duration.js';
import type { Policy } from '../policy/model.js';

/** `lanegate key list`: kids, when each was made, until when a retired one is still accepted. */
export const runKeyList = (policy: Policy, json: boolean): number => {
  const keys = listKeys(policy.gateway.stateDir);
  if (json) {
    process.stdout.write(`${JSON.stringify({ keys }, null, 2)}\n`);
    return 0;
  }
  if (keys.length === 0) {
    process.stdout.write('no keys yet: lanegate serve (or token issue) creates the first\n');
    return 0;
  }
  process.stdout.write(`${'kid'.padEnd(34)} ${'created'.padEnd(21)} accepted until\n`);
  for (const k of keys)
    process.stdout.write(
      `${k.kid.padEnd(34)} ${k.created.padEnd(21)} ${k.acceptedUntil ?? 'no end (current)'}${k.signing ? '   <- signs new tokens' : ''}\n`,
    );
  return 0;
};

/**
 * `lanegate key rotate [--keep-old 7d]`: a new signing key; older keys stay accepted until the
 * printed date, so nothing that is valid now ends at the rotation. A running gateway picks both
 * up by itself (StateWatch follows keys/).
 */
export const runKeyRotate = async (policy: Policy, keepOld: string, json = false): Promise<number> => {
  let keepS: number;
  try {
    keepS = parseDuration(keepOld);
  } catch (e) {
    process.stderr.write(`--keep-old: ${e instanceof Error ? e.message : 'not a duration'} (e.g. 7d, 12h)\n`);
    return 2;
  }
  const r = await rotateKeys(policy.gateway.stateDir, keepS);
  if (json) {
    process.stdout.write(`${JSON.stringify({ kid: r.kid, retired: r.retired }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(`new signing key ${r.kid}: lanegate token issue signs with it from now on\n`);
  for (const x of r.retired) process.stdout.write(`  tokens signed by ${x.kid} are accepted until ${x.acceptedUntil}, then refused\n`);
  process.stdout.write('a running gateway accepts the new key within a second (it follows the state dir); no reload needed\n');
  return 0;
};
