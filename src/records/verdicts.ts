import path from 'node:path';
import { isObject, keepCorrupt, type RecordProblem, readRecord, recordsDir, writeAtomic } from './atomic.js';

/**
 * records/shareability-verdicts.json (seed 000, durable contract 2). One row per server NAME
 * with the execution identity inside; only the expensive measurement (pre-flight and
 * demonstration) is cached, never the composite verdict. Rows of another SCHEMA, and rows that
 * cannot say whether the pre-flight ran, are dropped on read. `applied` markers are by name.
 */
export const SCHEMA = 'lanegate-shareability-3';

export interface Refutation {
  kind: 'contamination' | 'influence' | 'persistence';
  /** The request refuted, as a scope entry (`tools/call get-env`). */
  request: string;
  /** Which lane saw what, in words (never a secret; canaries are random probe strings). */
  detail: string;
  /**
   * Set when this refutation comes from an earlier demonstration that the current one did not
   * exercise: a refutation stands until a demonstration that exercises the request passes.
   */
  standingSince?: number;
}

export interface DemonstrationResult {
  ran: boolean;
  passed: boolean;
  refutations: Refutation[];
  notes: string[];
  /** Requests that ran without error in every run (scope entries), of the items the server listed. */
  coverage: { exercised: string[]; listed: number };
  /** What the verdict covers: the exercised requests with no refutation. A shared child runs only these. */
  scope: string[];
  /** Per request, the output leaves that differed between two fresh solo runs (noise, ignored). */
  volatile?: Record<string, string[]>;
  error?: string;
}

export interface VerdictRow {
  identity: string;
  schema: string;
  ran: boolean;
  /** The replayed handshake diverged between two callers (a note; gates nothing). */
  callerSensitive: boolean;
  divergent: string[];
  declaresCallerIdentity: boolean;
  evaluatedAt: number;
  reportedVersion?: string;
  error?: string;
  /** Capabilities that work worse when shared (e.g. logging: log lines reach no lane from a shared child). */
  degradations?: string[];
  demonstration?: DemonstrationResult;
}

export interface VerdictFile {
  entries: Record<string, VerdictRow>;
  applied: string[];
}

/** Pure: drops rows of another SCHEMA and rows without a boolean `ran` (never fabricate evidence). */
export const parseVerdicts = (json: unknown, schema = SCHEMA): VerdictFile => {
  const j = json as { entries?: unknown; applied?: unknown } | undefined;
  const entries: Record<string, VerdictRow> = {};
  if (j?.entries && typeof j.entries === 'object') {
    for (const [name, raw] of Object.entries(j.entries as Record<string, unknown>)) {
      const r = raw as Partial<VerdictRow> | null;
      if (!r || typeof r !== 'object' || typeof r.ran !== 'boolean' || r.schema !== schema || typeof r.identity !== 'string') continue;
      entries[name] = r as VerdictRow;
    }
  }
  const applied = Array.isArray(j?.applied) ? (j.applied as unknown[]).filter((a): a is string => typeof a === 'string') : [];
  return { entries, applied };
};

/**
 * The row that counts for a server now, or undefined. An identity mismatch hides the row (it may
 * be a transient fingerprint read) but keeps it; a reportedVersion mismatch — both sides known
 * and different — means the code behind the launch was replaced: the caller must DROP the row.
 * Pure.
 */
export const currentRow = (
  row: VerdictRow | undefined,
  identity: string,
  liveVersion: string | undefined,
): { row?: VerdictRow; drop: boolean } => {
  if (!row) return { drop: false };
  if (row.reportedVersion !== undefined && liveVersion !== undefined && row.reportedVersion !== liveVersion) return { drop: true };
  if (row.identity !== identity) return { drop: false };
  return { row, drop: false };
};

export const verdictFile = (stateDir: string): string => path.join(recordsDir(stateDir), 'shareability-verdicts.json');
const validVerdicts = (j: unknown): string | undefined =>
  !isObject(j)
    ? 'not an object'
    : !isObject(j.entries)
      ? 'no "entries" object'
      : j.applied !== undefined && !Array.isArray(j.applied)
        ? '"applied" is not a list'
        : undefined;

/**
 * The verdict cache. Unreadable means NO evidence (every server dedicated and re-measured), never
 * "as before"; with `keep` (the front, the single writer) the bad file is copied aside first.
 */
export const readVerdicts = (stateDir: string, keep = false): { verdicts: VerdictFile; problem?: RecordProblem } => {
  const file = verdictFile(stateDir);
  const r = readRecord(file, validVerdicts);
  if (r.status === 'missing') return { verdicts: { entries: {}, applied: [] } };
  if (r.status === 'ok') return { verdicts: parseVerdicts(r.json) };
  const copy = keep ? keepCorrupt(file) : undefined;
  return {
    verdicts: { entries: {}, applied: [] },
    problem: {
      file,
      reason: r.reason,
      ...(copy ? { copy } : {}),
      remedy: 'every server runs dedicated until it is measured again: run lanegate measure (the bad file is kept for inspection)',
    },
  };
};
export const writeVerdicts = (stateDir: string, v: VerdictFile): void =>
  writeAtomic(verdictFile(stateDir), `${JSON.stringify(v, null, 2)}\n`);
