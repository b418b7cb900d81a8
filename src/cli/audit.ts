import path from 'node:path';
import { parseDuration } from '../auth/duration.js';
import { LanegateError } from '../errors.js';
import { escapeUntrusted } from '../log/escape.js';
import type { Policy } from '../policy/model.js';
import type { AuditRecord } from '../audit/record.js';
import { type AuditFilter, readAudit } from '../audit/read.js';
import { auditDir } from '../audit/writer.js';

export interface AuditArgs {
  lane?: string;
  server?: string;
  since?: string;
  json: boolean;
}

/** `--since`: a duration back from now (90s, 15m, 1h, 2d) or an ISO 8601 instant. */
export const sinceOf = (text: string, now = Date.now()): number => {
  if (/^\d+[smhdw]$/.test(text.trim())) return now - parseDuration(text) * 1000;
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw new LanegateError('bad_request', `--since "${text}" must be a duration (15m, 1h, 2d) or an ISO 8601 time`);
  return t;
};

const where = (r: AuditRecord): string => (r.placement ? `${r.placement}${r.pid !== undefined ? ` ${r.pid}` : ''}` : '-');
const outcome = (r: AuditRecord): string => (r.outcome === 'error' ? `error ${r.errorCode ?? ''} ${r.error ?? ''}`.trim() : r.outcome);

/** The human table, one line per record (names escaped: they are lanes' and servers' choices). */
export const auditTable = (records: AuditRecord[]): string => {
  const rows = records.map((r) => [
    r.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    r.lane,
    r.server,
    `${r.method}${r.name ? ` ${escapeUntrusted(r.name, 60)}` : ''}`,
    where(r),
    outcome(r),
    `${r.durationMs.toFixed(1)}`,
    `${r.bytesIn}/${r.bytesOut}`,
    r.tokenId ? r.tokenId.slice(0, 12) : '-',
  ]);
  const head = ['time', 'lane', 'server', 'request', 'placement pid', 'outcome', 'ms', 'in/out B', 'token'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
};

/** `lanegate audit`: the audit trail of this policy's state dir, rotated files included. */
export const runAudit = (policy: Policy, a: AuditArgs): number => {
  const filter: AuditFilter = {
    ...(a.lane ? { lane: a.lane } : {}),
    ...(a.server ? { server: a.server } : {}),
    ...(a.since ? { since: sinceOf(a.since) } : {}),
  };
  const dir = auditDir(policy.gateway.stateDir);
  const read = readAudit(dir, filter);
  if (a.json) {
    process.stdout.write(`${JSON.stringify(read, null, 2)}\n`);
  } else if (read.records.length === 0) {
    process.stdout.write(
      `no audit records${a.lane || a.server || a.since ? ' match' : ''} in ${dir}${policy.gateway.audit.enabled ? '' : ' (gateway.audit.enabled is false)'}\n`,
    );
  } else {
    process.stdout.write(`${auditTable(read.records)}\n`);
  }
  for (const g of read.gaps) process.stderr.write(`gap: ${g.gap.dropped} record(s) could not be written before ${g.time}\n`);
  for (const r of read.rotated)
    process.stderr.write(
      `rotated: lane ${r.rotated.lane}'s records before ${r.rotated.before} were rotated out at ${r.time} (${r.rotated.bytes} bytes)\n`,
    );
  for (const p of read.problems) process.stderr.write(`${path.relative(process.cwd(), p.file) || p.file}:${p.line}: ${p.detail}\n`);
  if (read.problems.length > 0) {
    process.stderr.write(`${read.problems.length} line(s) of the audit trail are not records (shown above); the rest is listed\n`);
    return 1;
  }
  return 0;
};
