import { canonical, sha256 } from '../guard/hash.js';

/** The parts of a launch that, changed, make it a different program for evidence purposes. */
export interface LaunchParts {
  commandPath: string;
  args: string[];
  /** Non-secret environment the child gets from the policy (values included). */
  env: Record<string, string>;
  /** Names (never values) of secrets injected into the child. */
  secretNames: string[];
  cwd: string;
  /** Fingerprint of what actually runs: the binary and, for an interpreter, the script and its package. */
  fingerprint: string;
}

/**
 * The launch identity: evidence (verdicts, hazards) is stored under it and read back only for
 * the same identity, so upgrading or reconfiguring a server invalidates its evidence on read,
 * with no deletion. Secret VALUES are excluded (a rotation is not a new program); names count.
 * Pure.
 */
export const launchIdentity = (p: LaunchParts): string =>
  sha256(
    canonical({
      commandPath: p.commandPath,
      args: p.args,
      env: p.env,
      secretNames: [...p.secretNames].sort(),
      cwd: p.cwd,
      fingerprint: p.fingerprint,
    }),
  ).slice(0, 32);
