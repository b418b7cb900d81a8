import type { HostNotes, LINK } from '../../link/protocol.js';
import type { Logger } from 'pino';
import type { GuardReport } from '../../link/reports.js';
import { type GuardFile, MAX_DRIFT } from '../../records/guard-file.js';
import type { GuardWriter } from './guard-writer.js';
import type { Evidence } from './evidence.js';
import type { Escalations } from './escalations.js';
import type { Metrics } from './metrics.js';
import type { Policy } from '../../policy/model.js';
import type { RecordProblem } from '../../records/atomic.js';
import { escapeUntrusted } from '../../log/escape.js';

const detailOf = (e: unknown): string => (e instanceof Error ? e.message : 'unknown');

/** A host's guard report, kept in records/guard.json (the front is its single writer). */
export const recordGuardReport = (guard: GuardFile, r: GuardReport, writer: GuardWriter): void => {
  const prev = guard.servers[r.server];
  const now = new Date().toISOString();
  const drift = [...(prev?.drift ?? [])];
  // One entry per change of surface: every child of the server reports the same drift (later ones
  // with no changes left to list), and a repeat is not news.
  const last = drift.at(-1);
  if (r.drift && !(last && last.from === r.drift.from && last.to === r.drift.to))
    drift.push({ at: now, from: r.drift.from, to: r.drift.to, changes: r.drift.changes, outcome: r.status });
  guard.servers[r.server] = {
    status: r.status,
    ...(r.pinnedHash ? { pinnedHash: r.pinnedHash } : {}),
    surfaceHash: r.surfaceHash,
    surface: r.surface,
    findings: r.findings,
    trusted: r.trusted,
    itemHashes: r.itemHashes,
    seenAt: now,
    ...(r.lane !== undefined ? { lane: r.lane } : {}),
    ...(r.profile !== undefined ? { profile: r.profile } : {}),
    drift: drift.slice(-MAX_DRIFT),
  };
  // A verdict that changed is on disk before anything else happens; a surface that only grew waits a moment.
  const verdictChanged =
    prev?.status !== r.status ||
    prev.lane !== r.lane ||
    JSON.stringify([prev.findings, prev.trusted]) !== JSON.stringify([r.findings, r.trusted]);
  writer.changed(verdictChanged);
};

/**
 * A hazard a host observed, entered in the ledger against the server's current launch identity.
 * Returns false (and logs) when the code is not one the ledger accepts.
 */
export const recordHazard = (evidence: Evidence, server: string, code: string, hostKey: string, log: Logger): boolean => {
  const identity = evidence.identities[server] ?? '';
  try {
    evidence.ledger.record(server, identity, code, Date.now() / 1000);
  } catch (e) {
    log.warn({ event: 'hazard_refused', server, detail: detailOf(e) }, 'unknown hazard code refused');
    return false;
  }
  log.warn(
    { event: 'hazard_recorded', server, code, identity, host: hostKey },
    `hazard "${code}" recorded for "${server}"; it runs dedicated from now on`,
  );
  evidence.ledger
    .flush()
    .catch((e: unknown) =>
      log.error({ event: 'records_write_failed', file: 'observed-hazards.json', detail: detailOf(e) }, 'could not write the ledger'),
    );
  return true;
};

/** A host moved a lane off a shared child (evidence scope): kept until that host restarts, counted, logged. */
export const recordEscalation = (
  gw: { policy: Policy; escalations: Escalations; metrics: Metrics; log: Logger },
  host: string,
  p: Partial<HostNotes[typeof LINK.escalated]>,
): void => {
  if (!p.server || !p.lane || !gw.policy.lanes[p.lane]) return;
  // A host sends it escaped and short already; a host is not trusted to have done so.
  const request = escapeUntrusted(String(p.request ?? ''), 256);
  gw.escalations.add({ server: p.server, lane: p.lane, request, at: Number(p.at ?? Date.now()), host });
  gw.metrics.escalations.inc({ server: p.server, lane: p.lane });
  gw.log.info({ event: 'lane_escalated', server: p.server, lane: p.lane, request, host }, 'lane moved to a dedicated child');
};

/** Records files that exist but could not be read: one error each, naming the file, the copy and the remedy. */
export const logRecordProblems = (problems: readonly RecordProblem[], log: Logger): void => {
  for (const p of problems)
    log.error(
      { event: 'records_unreadable', file: p.file, reason: p.reason, copy: p.copy, remedy: p.remedy },
      `records file ${p.file} ${p.reason}; ${p.copy ? `kept as ${p.copy}; ` : ''}${p.remedy}`,
    );
};
