import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type AuditGap, type AuditRecord, type AuditRotation, isAuditGap, isAuditRecord, isAuditRotation } from './record.js';

export interface AuditFilter {
  lane?: string;
  server?: string;
  /** Records at or after this instant (epoch ms). */
  since?: number;
}

export interface AuditProblem {
  file: string;
  line: number;
  detail: string;
}

export interface AuditRead {
  records: AuditRecord[];
  /** Gap markers: records the writer had to drop, and when. */
  gaps: AuditGap[];
  /** Rotation markers: a lane's oldest records rotated out (its history before a time is gone). */
  rotated: AuditRotation[];
  /** Lines that are not records: reported, never skipped in silence. */
  problems: AuditProblem[];
}

/** A stream's file: <lane>.jsonl or <lane>.<n>.jsonl (and _gateway's; audit.jsonl from before per-lane files reads as one more). */
const STREAM_FILE = /^(_gateway|[a-z][a-z0-9-]*)(?:\.(\d+))?\.jsonl$/;

/** The audit files of a directory, each stream's oldest first (<s>.N.jsonl … <s>.1.jsonl, <s>.jsonl). */
export const auditFiles = (dir: string): string[] => {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return names
    .map((n) => ({ n, m: STREAM_FILE.exec(n) }))
    .filter((x) => x.m)
    .sort((a, b) => (a.m?.[1] ?? '').localeCompare(b.m?.[1] ?? '') || Number(b.m?.[2] ?? 0) - Number(a.m?.[2] ?? 0))
    .map((x) => path.join(dir, x.n));
};

/** Parses one file's text (pure): its records that pass the filter, gaps, and what is not a record. */
export const parseAudit = (file: string, text: string, f: AuditFilter, into: AuditRead): void => {
  const lines = text.split('\n');
  // A file ends with a newline; the empty string after it is not a line.
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      into.problems.push({ file, line: i + 1, detail: line.trim() === '' ? 'empty line' : 'not JSON (cut short or damaged)' });
      return;
    }
    if (isAuditGap(v)) {
      if (f.since === undefined || Date.parse(v.time) >= f.since) into.gaps.push(v);
      return;
    }
    if (isAuditRotation(v)) {
      if (f.lane === undefined || v.rotated.lane === f.lane) into.rotated.push(v);
      return;
    }
    if (!isAuditRecord(v)) {
      into.problems.push({ file, line: i + 1, detail: 'JSON, but not an audit record (a required field is missing or mistyped)' });
      return;
    }
    if (f.lane !== undefined && v.lane !== f.lane) return;
    if (f.server !== undefined && v.server !== f.server) return;
    if (f.since !== undefined && Date.parse(v.time) < f.since) return;
    into.records.push(v);
  });
};

/** Every audit file of a directory, the rotated ones included: all lanes' records in time order. */
export const readAudit = (dir: string, f: AuditFilter = {}): AuditRead => {
  const out: AuditRead = { records: [], gaps: [], rotated: [], problems: [] };
  for (const file of auditFiles(dir)) parseAudit(file, readFileSync(file, 'utf8'), f, out);
  // Each lane's file is in order; merged, by time (stable: a lane's own order is kept on ties).
  out.records.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  return out;
};
