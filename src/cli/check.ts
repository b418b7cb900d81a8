import { isLanegateError } from '../errors.js';
import { readGuard } from '../records/guard-file.js';
import { Ledger, ledgerFile } from '../records/ledger.js';
import { readTrust } from '../records/trust-file.js';
import { readTokenRecords } from '../records/token-records.js';
import { readVerdicts } from '../records/verdicts.js';
import { loadPolicy } from '../policy/load.js';
import { reportLoad } from './load-report.js';
import type { Policy } from '../policy/model.js';

/** Loads a policy or prints every problem (file:line:col  path  message) and returns undefined. */
export const loadOrReport = (file: string, out: NodeJS.WritableStream = process.stderr): Policy | undefined =>
  reportLoad(loadPolicy(file), file, out);

/**
 * Every records file that exists but cannot be read, each with what it means and the remedy. The
 * guard and trust files stop `serve`; an unreadable ledger or verdict cache is read on the unsafe
 * side (everything dedicated) and reported. Read-only: nothing is copied or written.
 */
export const recordsProblems = (stateDir: string): string[] => {
  const out: string[] = [];
  for (const read of [() => readGuard(stateDir), () => readTrust(stateDir), () => readTokenRecords(stateDir)]) {
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
