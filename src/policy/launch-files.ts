import { existsSync } from 'node:fs';
import path from 'node:path';
import { expandPlaceholders, hasLanePlaceholder } from './placeholders.js';
import type { PathProblem } from './problem.js';
import type { PolicyDoc } from './schema.js';

/** Arguments that name a program file for the interpreter to run. */
const SCRIPT = /\.(?:m?js|cjs|ts|mts|py|rb|pl|sh|jar)$/;

/**
 * Launch arguments that name a script file that does not exist: the server would start and die
 * at once ("Cannot find module"). Only absolute paths (after placeholders) with a script's
 * extension are judged; a relative one depends on the child's working directory, and {lane}
 * paths on the lane. A warning, not a refusal: the rest of the policy can serve.
 */
export const missingLaunchFiles = (doc: PolicyDoc, policyDir: string, stateDir: string, nodePath: string): PathProblem[] => {
  const out: PathProblem[] = [];
  for (const [name, s] of Object.entries(doc.servers)) {
    if (!s.stdio || s.enabled === false) continue;
    for (const [i, a] of s.stdio.args.entries()) {
      if (hasLanePlaceholder(a) || !SCRIPT.test(a)) continue;
      const p = expandPlaceholders(a, { policyDir, stateDir, node: nodePath });
      if (!path.isAbsolute(p) || existsSync(p)) continue;
      out.push({
        path: ['servers', name, 'stdio', 'args', i],
        value: p,
        message: `"${p}" does not exist: server "${name}" would fail to start (Cannot find module); fix the path or remove the server`,
      });
    }
  }
  return out;
};
