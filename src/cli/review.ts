import { escapeUntrusted } from '../log/escape.js';
import type { Policy } from '../policy/model.js';
import { readGuard } from '../records/guard-file.js';
import { Ledger, ledgerFile } from '../records/ledger.js';
import { readVerdicts } from '../records/verdicts.js';
import type { RecordProblem } from '../records/atomic.js';
import { readOperatorToken } from '../front/operator/operator.js';
import { gatewayBase } from './operator-api.js';
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

/** The summary table: one line per server. */
const summaryLines = (rows: ReviewRow[]): string[] => {
  const w = Math.max(6, ...rows.map((r) => r.server.length));
  return [
    `${'server'.padEnd(w)}  ${'domain'.padEnd(14)} ${'kind'.padEnd(9)} ${'placement'.padEnd(9)}  ${'evidence'.padEnd(12)} refused by`,
    ...rows.map(
      (r) =>
        `${r.server.padEnd(w)}  ${r.domain.padEnd(14)} ${r.kind.padEnd(9)} ${r.placement.padEnd(9)}  ${r.strength.padEnd(12)} ${r.refusedBy.map((x) => AXIS_NAMES[x.axis] ?? x.axis).join(', ') || '-'}`,
    ),
  ];
};

/** What the running gateway did with the server: its placement now, live promotion and retreat, who is on the shared child. */
const liveLines = (r: ReviewRow, live: NonNullable<ReviewRow['live']>): string[] => {
  const out: string[] = [];
  if (live.runningPlacement && live.runningPlacement !== r.placement)
    out.push(`  running:    ${live.runningPlacement.toUpperCase()} right now; the running host is taking the new placement`);
  if (live.promotedAt)
    out.push(
      `  promoted:   live at ${when(live.promotedAt / 1000)}; lanes moved onto the shared child since: ${live.joined?.map((j) => j.lane).join(', ') || 'none'}`,
    );
  if (live.retreatedAt) out.push(`  retreated:  live at ${when(live.retreatedAt / 1000)}`);
  if (r.placement === 'shared' && live.runningPlacement !== 'dedicated')
    out.push(`  on shared:  ${live.sharedLanes.join(', ') || 'no lane has called it yet'}`);
  for (const e of live.escalations)
    out.push(`  escalated:  lane ${e.lane} runs it dedicated since ${when(e.at / 1000)}: it called ${escapeUntrusted(e.request, 200)}`);
  return out;
};

/** The reasons, the hazards the ledger holds, and what refused co-location (with the remedy for each). */
const groundLines = (r: ReviewRow): string[] => {
  const out: string[] = ['  reasons:'];
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
  return out;
};

/** One server in full. */
const rowLines = (r: ReviewRow): string[] => {
  const out: string[] = ['', `${r.server} (prefix ${r.prefix}; lanes: ${r.lanes.join(', ') || 'none'})`];
  out.push(
    `  placement:  ${r.placement.toUpperCase()}${r.placement === 'shared' ? ' — one process serves every lane of its domain' : ' — one process per lane'}`,
  );
  out.push(`  evidence:   ${r.strength}`);
  out.push(`  identity:   ${r.identity}${r.reportedVersion ? ` (reports version ${escapeUntrusted(r.reportedVersion, 40)})` : ''}`);
  out.push(`  measured:   ${when(r.measuredAt)}`);
  if (r.coverage)
    out.push(
      `  coverage:   ${r.coverage.exercised.length}/${r.coverage.listed} listed items exercised by the probe in every run (${r.coverage.exercised.join(', ') || 'none'})`,
    );
  if (r.placement === 'shared') {
    out.push(`  scope:      ${r.scope.join(', ') || 'none'} — the shared child runs only these (plus listings and ping)`);
    out.push('              any other request moves the lane making it to a dedicated child of its own');
  }
  if (r.refuted.length > 0)
    out.push(`  refuted:    ${r.refuted.join(', ')} — never inside the scope until a demonstration exercising it passes`);
  if (r.live) out.push(...liveLines(r, r.live));
  out.push(`  guard:      ${r.guard}`);
  for (const w of r.withheld ?? [])
    out.push(
      `  withheld:   from lane ${w.lane} by its catalog across hosts: ${escapeUntrusted(w.tool, 120)}: ${w.finding} ("${escapeUntrusted(w.matched, 200)}")`,
    );
  if (r.drift) out.push(`  drift:      ${escapeUntrusted(r.drift, 300)}`);
  return [...out, ...groundLines(r)];
};

/** The review as a security reviewer reads it: a summary table, then every row in full. Pure. */
export const renderReview = (rows: ReviewRow[]): string => `${[...summaryLines(rows), ...rows.flatMap(rowLines)].join('\n')}\n`;

/** Rows from the records on disk, loaded once (works with the gateway stopped), and any unreadable file. */
export const reviewFromRecords = (policy: Policy): { rows: ReviewRow[]; problems: RecordProblem[] } => {
  const stateDir = policy.gateway.stateDir;
  const ledger = new Ledger(ledgerFile(stateDir));
  const v = readVerdicts(stateDir);
  const problems = [ledger.problem, v.problem].filter((p): p is RecordProblem => p !== undefined);
  const rows = buildReview({
    policy,
    identities: Object.fromEntries(Object.values(policy.servers).map((s) => [s.name, identityOf(policy, s)])),
    ledger: Object.fromEntries(Object.keys(policy.servers).map((n) => [n, ledger.recordsOf(n)])),
    ...(ledger.quarantined ? { ledgerQuarantined: true } : {}),
    verdicts: v.verdicts,
    guard: readGuard(stateDir),
    liveVersions: {},
  });
  return { rows, problems };
};

/** The running gateway's rows (with lanes on shared children and escalations), or undefined if none answers. */
const liveRows = async (policy: Policy, url?: string): Promise<ReviewRow[] | undefined> => {
  const token = process.env.LANEGATE_OPERATOR_TOKEN ?? readOperatorToken(policy.gateway.stateDir);
  if (!token) return undefined;
  try {
    const r = await fetch(`${gatewayBase(policy, url)}/api/servers`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(2000),
    });
    if (!r.ok) return undefined;
    return ((await r.json()) as { servers: ReviewRow[] }).servers;
  } catch {
    return undefined;
  }
};

/**
 * `lanegate review`: from the running gateway when one answers (it adds what only it knows: lanes
 * on each shared child, escalations, drift), else from the records on disk.
 */
export const runReview = async (policy: Policy, json: boolean, url?: string): Promise<number> => {
  const disk = reviewFromRecords(policy);
  for (const p of disk.problems) process.stderr.write(`error: records file ${p.file} ${p.reason}; ${p.remedy}\n`);
  const live = await liveRows(policy, url);
  const rows = live ?? disk.rows;
  const source = live
    ? 'the running gateway'
    : 'the records on disk (no gateway answered: lanes on shared children and escalations not shown)';
  process.stdout.write(
    json
      ? `${JSON.stringify({ source: live ? 'gateway' : 'records', servers: rows }, null, 2)}\n`
      : `# from ${source}\n${renderReview(rows)}`,
  );
  return disk.problems.length > 0 ? 1 : 0;
};
