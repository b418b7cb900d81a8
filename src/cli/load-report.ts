import { formatRefusal } from '../guard/refusal.js';
import type { LoadResult } from '../policy/load.js';
import type { Policy } from '../policy/model.js';
import { formatProblem, type PolicyProblem } from '../policy/problem.js';

/** The policy of a load, or every problem printed (file:line:col  path  message) and undefined. */
export const reportLoad = (r: LoadResult, file: string, out: NodeJS.WritableStream = process.stderr): Policy | undefined => {
  if (r.policy) return r.policy;
  for (const p of r.problems) out.write(`${formatProblem(p)}\n`);
  for (const p of r.problems.filter((x) => x.message.startsWith('layer one'))) out.write(`\n${layerOneRefusal(p)}\n`);
  out.write(`${r.problems.length} problem(s) in ${file}; nothing was started\n`);
  return undefined;
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
