import { formatRefusal } from '../guard/refusal.js';
import type { LoadResult } from '../policy/load.js';
import type { Policy } from '../policy/model.js';
import { formatProblem, type PolicyProblem } from '../policy/problem.js';

/** The policy of a load, or every problem printed (file:line:col  path  message) and undefined. */
export const reportLoad = (r: LoadResult, file: string, out: NodeJS.WritableStream = process.stderr): Policy | undefined => {
  if (r.policy) return r.policy;
  const warnings = (r.warnings ?? []).map((w) => ({ ...w, message: `warning: ${w.message}` }));
  for (const p of [...r.problems, ...warnings].sort((a, b) => a.line - b.line || a.col - b.col)) out.write(`${formatProblem(p)}\n`);
  for (const p of r.problems.filter((x) => x.message.startsWith('layer one'))) out.write(`\n${layerOneRefusal(p)}\n`);
  const also = warnings.length > 0 ? ` and ${warnings.length} warning(s)` : '';
  out.write(`${r.problems.length} problem(s)${also} in ${file}; nothing was started\n`);
  return undefined;
};

/** A layer-one problem in the same refusal format as layer two. */
export const layerOneRefusal = (p: PolicyProblem): string => {
  const at = p.at ?? [];
  const upstream = at[0] === 'servers' ? String(at[1]) : at[0] === 'commands' ? `command ${String(at[1])}` : p.path;
  return formatRefusal({
    upstream,
    lanes: p.lanes ?? [],
    layer: 'structural',
    tool: `(policy) ${p.path}`,
    finding: p.message.replace(/^layer one \(structural\): /, ''),
    matched: p.value ?? '',
    action: 'policy refused; the gateway does not start and nothing is launched',
    remedy: [`edit ${p.file}:${p.line}:${p.col}, then: npx lanegate check --policy ${p.file}`],
    when: 'policy load',
  });
};

/** Problems that do not stop the policy, as `file:line:col  path  warning: …`; returns how many. */
export const reportWarnings = (r: LoadResult, out: NodeJS.WritableStream = process.stderr): number => {
  for (const w of r.warnings ?? []) out.write(`${formatProblem({ ...w, message: `warning: ${w.message}` })}\n`);
  return r.warnings?.length ?? 0;
};
