import type { Logger } from 'pino';
import type { GuardReport } from '../host/guard.js';
import { type GuardFile, MAX_DRIFT, writeGuard } from '../records/guard-file.js';
import type { Evidence } from './evidence.js';

const detailOf = (e: unknown): string => (e instanceof Error ? e.message : 'unknown');

/** A host's guard report, kept in records/guard.json (the front is its single writer). */
export const recordGuardReport = (guard: GuardFile, r: GuardReport, stateDir: string, log: Logger): void => {
  const prev = guard.servers[r.server];
  const now = new Date().toISOString();
  const drift = [...(prev?.drift ?? [])];
  if (r.drift) drift.push({ at: now, from: r.drift.from, to: r.drift.to, changes: r.drift.changes, outcome: r.status });
  guard.servers[r.server] = {
    status: r.status,
    ...(r.pinnedHash ? { pinnedHash: r.pinnedHash } : {}),
    surfaceHash: r.surfaceHash,
    surface: r.surface,
    findings: r.findings,
    trusted: r.trusted,
    itemHashes: r.itemHashes,
    seenAt: now,
    drift: drift.slice(-MAX_DRIFT),
  };
  try {
    writeGuard(stateDir, guard);
  } catch (e) {
    log.error({ event: 'records_write_failed', file: 'guard.json', detail: detailOf(e) }, 'could not write guard records');
  }
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
