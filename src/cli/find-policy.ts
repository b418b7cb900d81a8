import { existsSync } from 'node:fs';
import path from 'node:path';
import { LanegateError } from '../errors.js';

/**
 * How to write the command in advice printed to the operator: `lanegate` when it was run from the
 * PATH (npm link, npm install -g), else `npx lanegate` (in the clone; npx and npm scripts set
 * npm_command).
 */
export const commandName = (): string =>
  !process.env.npm_command && path.basename(process.argv[1] ?? '') === 'lanegate' ? 'lanegate' : 'npx lanegate';

/** Where a command looks for the policy when no --policy is given, in this order (after $LANEGATE_POLICY). */
export const DEFAULT_POLICY_PATHS = ['lanegate.yaml', 'lanegate.yml', 'policies/default.yaml'] as const;

export type PolicyChoice = { ok: true; file: string } | { ok: false; detail: string };

/**
 * Pure: which policy a command uses. --policy wins, then $LANEGATE_POLICY, then the first default
 * location that exists. With none, the answer says what was looked for and how to name one.
 */
export const choosePolicy = (given: string | undefined, env: string | undefined, exists: (rel: string) => boolean): PolicyChoice => {
  if (given) return { ok: true, file: given };
  if (env) return { ok: true, file: env };
  const found = DEFAULT_POLICY_PATHS.find((p) => exists(p));
  if (found) return { ok: true, file: found };
  return {
    ok: false,
    detail:
      `no policy found: looked for $LANEGATE_POLICY, then ${DEFAULT_POLICY_PATHS.map((p) => `./${p}`).join(', ')}. ` +
      `Pass one with --policy FILE (or export LANEGATE_POLICY=FILE), or create a starter with: ${commandName()} init`,
  };
};

/** The policy file a command uses, from the current directory; throws (exit 1, with the remedy) when there is none. */
export const findPolicy = (given: string | undefined): string => {
  const c = choosePolicy(given, process.env.LANEGATE_POLICY || undefined, (rel) => existsSync(path.resolve(rel)));
  if (!c.ok) throw new LanegateError('bad_request', c.detail);
  return c.file;
};
