import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type AuditGap, type AuditRecord, isAuditGap, isAuditRecord } from './record.js';
import { AUDIT_FILE } from './writer.js';

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
  /** Lines that are not records: reported, never skipped in silence. */
  problems: AuditProblem[];
}

const ROTATED = /^audit\.(\d+)\.jsonl$/;

/** The audit files of a directory, oldest first (audit.N.jsonl … audit.1.jsonl, audit.jsonl). */
export const auditFiles = (dir: string): string[] => {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const rotated = names
    .map((n) => ({ n, m: ROTATED.exec(n) }))
    .filter((x) => x.m)
    .sort((a, b) => Number(b.m?.[1]) - Number(a.m?.[1]))
    .map((x) => x.n);
  return [...rotated, ...(names.includes(AUDIT_FILE) ? [AUDIT_FILE] : [])].map((n) => path.join(dir, n));
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

/** Every audit file of a directory, the rotated ones included, oldest first. */
export const readAudit = (dir: string, f: AuditFilter = {}): AuditRead => {
  const out: AuditRead = { records: [], gaps: [], problems: [] };
  for (const file of auditFiles(dir)) parseAudit(file, readFileSync(file, 'utf8'), f, out);
  return out;
};
