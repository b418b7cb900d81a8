import { isLanegateError } from '../errors.js';
import { readGuard } from '../records/guard-file.js';
import { Ledger, ledgerFile } from '../records/ledger.js';
import { readTrust } from '../records/trust-file.js';
import { readTokenRecords } from '../records/token-records.js';
import { readVerdicts } from '../records/verdicts.js';
import { loadPolicy } from '../policy/load.js';
import { reportLoad, reportWarnings } from './load-report.js';
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

export const runCheck = async (file: string, launch = false): Promise<number> => {
  const r = loadPolicy(file);
  const policy = reportLoad(r, file);
  if (!policy) return 1;
  const warned = reportWarnings(r);
  const n = (o: object): number => Object.keys(o).length;
  const records = recordsProblems(policy.gateway.stateDir);
  for (const r of records) process.stderr.write(`error: ${r}\n`);
  let failed = 0;
  if (launch) {
    process.stdout.write('starting each server once (initialize, list, stop):\n');
    failed = await (await import('./check-launch.js')).checkLaunch(policy);
  }
  if (records.length > 0 || warned > 0 || failed > 0) {
    if (warned > 0) process.stderr.write(`${warned} warning(s) in ${file}: serve would start, but the server(s) named fail to launch\n`);
    if (failed > 0) process.stderr.write(`${failed} server(s) failed to start; the lines above say why\n`);
    return 1;
  }
  process.stdout.write(
    `${file}: ok (${n(policy.domains)} trust domains, ${n(policy.servers)} servers, ${n(policy.lanes)} lanes; layer one passed)\n`,
  );
  return 0;
};
