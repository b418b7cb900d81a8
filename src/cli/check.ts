import { loadPolicy } from '../policy/load.js';
import { formatProblem, type PolicyProblem } from '../policy/problem.js';
import { formatRefusal } from '../guard/refusal.js';
import type { Policy } from '../policy/model.js';

/** Loads a policy or prints every problem (file:line:col  path  message) and returns undefined. */
export const loadOrReport = (file: string, out: NodeJS.WritableStream = process.stderr): Policy | undefined => {
  const r = loadPolicy(file);
  if (r.policy) return r.policy;
  for (const p of r.problems) out.write(`${formatProblem(p)}\n`);
  for (const p of r.problems.filter((x) => x.message.startsWith('layer one'))) out.write(`\n${layerOneRefusal(p)}\n`);
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

/** A layer-one problem in the same refusal format as layer two. */
export const layerOneRefusal = (p: PolicyProblem): string => {
  const at = p.at ?? [];
  const upstream = at[0] === 'servers' ? String(at[1]) : at[0] === 'commands' ? `command ${String(at[1])}` : p.path;
  return formatRefusal({
    upstream,
    lanes: [],
    layer: 'structural',
    tool: `(policy) ${p.path}`,
    finding: p.message.replace(/^layer one \(structural\): /, ''),
    matched: p.value ?? '',
    action: 'policy refused; the gateway does not start and nothing is launched',
    remedy: [`edit ${p.file}:${p.line}:${p.col}, then: lanegate check --policy ${p.file}`],
    when: 'policy load',
  });
};
