import { escapeUntrusted } from '../log/escape.js';
import type { Policy } from '../policy/model.js';
import { readGuard } from '../records/guard-file.js';
import { Ledger, ledgerFile } from '../records/ledger.js';
import { readVerdicts } from '../records/verdicts.js';
import { identityOf } from '../shareability/launch-identity.js';
import { buildReview, type ReviewRow } from '../shareability/review.js';

const AXIS_NAMES: Record<string, string> = {
  trust_domain: 'trust domain',
  operator: 'operator',
  launch: 'launch',
  statelessness: 'statelessness',
  ledger: 'ledger',
  guard: 'guard',
};

const when = (t: number | undefined): string => (t ? new Date(t * 1000).toISOString().replace(/\.\d+Z$/, 'Z') : 'never');

/** The review as a security reviewer reads it: a summary table, then every row in full. Pure. */
export const renderReview = (rows: ReviewRow[]): string => {
  const out: string[] = [];
  const w = Math.max(6, ...rows.map((r) => r.server.length));
  out.push(
    `${'server'.padEnd(w)}  ${'domain'.padEnd(14)} ${'kind'.padEnd(9)} ${'placement'.padEnd(9)}  ${'evidence'.padEnd(12)} refused by`,
  );
  for (const r of rows) {
    out.push(
      `${r.server.padEnd(w)}  ${r.domain.padEnd(14)} ${r.kind.padEnd(9)} ${r.placement.padEnd(9)}  ${r.strength.padEnd(12)} ${r.refusedBy.map((x) => AXIS_NAMES[x.axis] ?? x.axis).join(', ') || '-'}`,
    );
  }
  for (const r of rows) {
    out.push('', `${r.server} (prefix ${r.prefix}; lanes: ${r.lanes.join(', ') || 'none'})`);
    out.push(
      `  placement:  ${r.placement.toUpperCase()}${r.placement === 'shared' ? ' — one process serves every lane of its domain' : ' — one process per lane'}`,
    );
    out.push(`  evidence:   ${r.strength}`);
    out.push(`  identity:   ${r.identity}${r.reportedVersion ? ` (reports version ${escapeUntrusted(r.reportedVersion, 40)})` : ''}`);
    out.push(`  measured:   ${when(r.measuredAt)}`);
    if (r.coverage)
      out.push(
        `  coverage:   ${r.coverage.exercised.length}/${r.coverage.listed} tools exercised by the probe (${r.coverage.exercised.join(', ') || 'none'})`,
      );
    out.push(`  guard:      ${r.guard}`);
    if (r.drift) out.push(`  drift:      ${escapeUntrusted(r.drift, 300)}`);
    out.push('  reasons:');
    for (const x of r.reasons) out.push(`    - ${x.code} [${x.grade}]: ${escapeUntrusted(x.detail, 300)}`);
    if (r.hazards.length > 0) {
      out.push('  ledger:');
      for (const h of r.hazards) {
        out.push(
          `    - identity ${h.identity || '(unattributed)'}${h.current ? ' (current)' : ' (another launch; does not count now)'}: ${h.record.codes.join(', ')} ×${h.record.count}, last ${when(h.record.lastSeen)}`,
        );
      }
    }
    if (r.refusedBy.length > 0) {
      out.push('  co-location refused by:');
      for (const x of r.refusedBy) out.push(`    - ${AXIS_NAMES[x.axis] ?? x.axis}: ${x.remedy}`);
    }
  }
  return `${out.join('\n')}\n`;
};

/** Rows from the records on disk, loaded once (works with the gateway stopped). */
export const reviewFromRecords = (policy: Policy): ReviewRow[] => {
  const stateDir = policy.gateway.stateDir;
  const ledger = new Ledger(ledgerFile(stateDir));
  return buildReview({
    policy,
    identities: Object.fromEntries(Object.values(policy.servers).map((s) => [s.name, identityOf(policy, s)])),
    ledger: Object.fromEntries(Object.keys(policy.servers).map((n) => [n, ledger.recordsOf(n)])),
    verdicts: readVerdicts(stateDir),
    guard: readGuard(stateDir),
    liveVersions: {},
  });
};

export const runReview = (policy: Policy, json: boolean): number => {
  const rows = reviewFromRecords(policy);
  process.stdout.write(json ? `${JSON.stringify({ servers: rows }, null, 2)}\n` : renderReview(rows));
  return 0;
};
