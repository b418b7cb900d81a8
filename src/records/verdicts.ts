import path from 'node:path';
import { readJson, recordsDir, writeAtomic } from './atomic.js';

/**
 * records/shareability-verdicts.json (seed 000, durable contract 2). One row per server NAME
 * with the execution identity inside; only the expensive measurement (pre-flight and
 * demonstration) is cached, never the composite verdict. Rows of another SCHEMA, and rows that
 * cannot say whether the pre-flight ran, are dropped on read. `applied` markers are by name.
 */
export const SCHEMA = 'lanegate-shareability-2';

export interface Refutation {
  kind: 'contamination' | 'influence' | 'persistence';
  tool: string;
  /** Which lane saw what, in words (never a secret; canaries are random probe strings). */
  detail: string;
}

export interface DemonstrationResult {
  ran: boolean;
  passed: boolean;
  refutations: Refutation[];
  notes: string[];
  coverage: { exercised: string[]; listed: number };
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
  /** Capabilities that work worse when shared (e.g. logging: the last caller's level wins). */
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
export const readVerdicts = (stateDir: string): VerdictFile => parseVerdicts(readJson(verdictFile(stateDir)));
export const writeVerdicts = (stateDir: string, v: VerdictFile): void =>
  writeAtomic(verdictFile(stateDir), `${JSON.stringify(v, null, 2)}\n`);
