import type { Policy } from '../../policy/model.js';
import type { GuardFile } from '../../records/guard-file.js';
import { Ledger, ledgerFile } from '../../records/ledger.js';
import { type RecordProblem, recordsDir, sweepTemps } from '../../records/atomic.js';
import { currentRow, readVerdicts, type VerdictFile, type VerdictRow, writeVerdicts } from '../../records/verdicts.js';
import { identityOf } from '../../shareability/launch-identity.js';
import type { Placement } from '../../shareability/placement.js';
import { buildReview, type ReviewRow } from '../../shareability/review.js';

/**
 * Everything the gate decides from, held by the front (the single writer of records): launch
 * identities (computed once at start: they read binaries and scripts), the hazard ledger, the
 * verdict cache, and the versions live children report.
 */
export class Evidence {
  readonly ledger: Ledger;
  verdicts: VerdictFile;
  identities: Record<string, string> = {};
  readonly liveVersions: Record<string, string> = {};

  /** Records files that exist but could not be read, each read on the unsafe side (see records/). */
  readonly problems: RecordProblem[] = [];

  constructor(private policy: Policy) {
    // The front is the records' single writer: a temp file of a writer that died is litter.
    sweepTemps(recordsDir(policy.gateway.stateDir));
    this.ledger = new Ledger(ledgerFile(policy.gateway.stateDir), true);
    if (this.ledger.problem) this.problems.push(this.ledger.problem);
    const v = readVerdicts(policy.gateway.stateDir, true);
    this.verdicts = v.verdicts;
    if (v.problem) this.problems.push(v.problem);
    this.onPolicy(policy);
  }

  onPolicy(p: Policy): void {
    this.policy = p;
    this.identities = Object.fromEntries(Object.values(p.servers).map((s) => [s.name, identityOf(p, s)]));
  }

  /** A live child reported its version: a stored row measured on another version is DROPPED. */
  noteVersion(server: string, version: string): void {
    this.liveVersions[server] = version;
    const { drop } = currentRow(this.verdicts.entries[server], this.identities[server] ?? '', version);
    if (drop) {
      delete this.verdicts.entries[server];
      this.saveVerdicts();
    }
  }

  row(server: string): VerdictRow | undefined {
    return currentRow(this.verdicts.entries[server], this.identities[server] ?? '', this.liveVersions[server]).row;
  }

  setRow(server: string, row: VerdictRow): void {
    this.verdicts.entries[server] = row;
  }

  saveVerdicts(): void {
    writeVerdicts(this.policy.gateway.stateDir, this.verdicts);
  }

  review(guard: GuardFile, inventory: Record<string, string> = {}): ReviewRow[] {
    const ledger = Object.fromEntries(Object.keys(this.policy.servers).map((n) => [n, this.ledger.recordsOf(n)]));
    return buildReview({
      policy: this.policy,
      identities: this.identities,
      ledger,
      ...(this.ledger.quarantined ? { ledgerQuarantined: true } : {}),
      verdicts: this.verdicts,
      guard,
      liveVersions: this.liveVersions,
      inventory,
    });
  }

  /** The demonstrated scope of each server under its current identity (empty when none passed). */
  scopes(): Record<string, string[]> {
    return Object.fromEntries(Object.keys(this.policy.servers).map((n) => [n, this.row(n)?.demonstration?.scope ?? []]));
  }

  placements(guard: GuardFile): Record<string, Placement> {
    return Object.fromEntries(this.review(guard).map((r) => [r.server, r.placement]));
  }
}
