import { Option } from 'commander';
import type { Policy } from '../policy/model.js';
import { DEFAULT_POLICY_PATHS, findPolicy } from './find-policy.js';

/** The pieces every command definition shares: examples, the common options, the exit code, the policy. */
export const example = (...lines: string[]): string =>
  `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/** What the command that ran asks the process to exit with. */
let exitCode = 0;
export const done = (code: number): void => {
  exitCode = code;
};
export const exitCodeOf = (): number => exitCode;

/** The policy named by --policy (or the default), or undefined after printing its problems (exit 1). */
export const policyOf = async (file: string | undefined): Promise<Policy | undefined> => {
  const { loadOrReport } = await import('./check.js');
  const p = loadOrReport(findPolicy(file));
  if (!p) done(1);
  return p;
};

export const policyOption = (): Option =>
  new Option(
    '-p, --policy <file>',
    `the policy file (default: $LANEGATE_POLICY, else the first of ${DEFAULT_POLICY_PATHS.map((p) => `./${p}`).join(', ')})`,
  );
export const urlOption = (): Option => new Option('--url <url>', "the running gateway's URL (default: from the policy's listen)");
