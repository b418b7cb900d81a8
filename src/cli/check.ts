import { isLanegateError } from '../errors.js';
import { readGuard } from '../records/guard-file.js';
import { Ledger, ledgerFile } from '../records/ledger.js';
import { readTrust } from '../records/trust-file.js';
import { readVerdicts } from '../records/verdicts.js';
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

/**
 * Every records file that exists but cannot be read, each with what it means and the remedy. The
 * guard and trust files stop `serve`; an unreadable ledger or verdict cache is read on the unsafe
 * side (everything dedicated) and reported. Read-only: nothing is copied or written.
 */
export const recordsProblems = (stateDir: string): string[] => {
  const out: string[] = [];
  for (const read of [() => readGuard(stateDir), () => readTrust(stateDir)]) {
    try {
      read();
    } catch (e) {
      out.push(isLanegateError(e) ? `${e.detail} (serve refuses to start)` : String(e));
    }
  }
  const ledger = new Ledger(ledgerFile(stateDir));
  const v = readVerdicts(stateDir);
  for (const p of [ledger.problem, v.problem]) if (p) out.push(`${p.file} ${p.reason}; ${p.remedy}`);
  return out;
};

export const runCheck = (file: string): number => {
  const policy = loadOrReport(file);
  if (!policy) return 1;
  const n = (o: object): number => Object.keys(o).length;
  const records = recordsProblems(policy.gateway.stateDir);
  for (const r of records) process.stderr.write(`error: ${r}\n`);
  if (records.length > 0) return 1;
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
