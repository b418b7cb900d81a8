import { loadPolicy } from '../policy/load.js';
import { formatProblem } from '../policy/problem.js';
import type { Policy } from '../policy/model.js';

/** Loads a policy or prints every problem (file:line:col  path  message) and returns undefined. */
export const loadOrReport = (file: string, out: NodeJS.WritableStream = process.stderr): Policy | undefined => {
  const r = loadPolicy(file);
  if (r.policy) return r.policy;
  for (const p of r.problems) out.write(`${formatProblem(p)}\n`);
  out.write(`${r.problems.length} problem(s) in ${file}; nothing was started\n`);
  return undefined;
};

export const runCheck = (file: string): number => {
  const policy = loadOrReport(file);
  if (!policy) return 1;
  const n = (o: object): number => Object.keys(o).length;
  process.stdout.write(
    `${file}: ok (${n(policy.domains)} trust domains, ${n(policy.servers)} servers, ${n(policy.lanes)} lanes; layer one passed)\n`,
  );
  return 0;
};
