import { statSync } from 'node:fs';
import path from 'node:path';
import type { TrustOverride } from '../guard/trust.js';
import { readJson, recordsDir, writeAtomic } from './atomic.js';

/** records/trust.json: written by `lanegate trust` (the operator), read by hosts. Schema 1. */
export const trustFile = (stateDir: string): string => path.join(recordsDir(stateDir), 'trust.json');

const isOverride = (o: unknown): o is TrustOverride => {
  const r = o as Record<string, unknown>;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.server === 'string' &&
    typeof r.kind === 'string' &&
    typeof r.item === 'string' &&
    typeof r.hash === 'string' &&
    /^[0-9a-f]{64}$/.test(r.hash) &&
    typeof r.reviewedBy === 'string'
  );
};

/** A missing, corrupt or future-schema file holds no overrides (never "trust everything"). */
export const readTrust = (stateDir: string): TrustOverride[] => {
  const j = readJson(trustFile(stateDir)) as { schema?: unknown; overrides?: unknown } | undefined;
  if (j?.schema !== 1 || !Array.isArray(j.overrides)) return [];
  return j.overrides.filter(isOverride);
};

export const addTrust = (stateDir: string, add: TrustOverride[]): void => {
  const current = readTrust(stateDir).filter(
    (o) => !add.some((a) => a.server === o.server && a.kind === o.kind && a.item === o.item && a.hash === o.hash),
  );
  writeAtomic(trustFile(stateDir), `${JSON.stringify({ schema: 1, overrides: [...current, ...add] }, null, 2)}\n`);
};

/** The file's mtime, so a host re-reads overrides only when the operator changed them. */
export const trustVersion = (stateDir: string): number => {
  try {
    return statSync(trustFile(stateDir)).mtimeMs;
  } catch {
    return 0;
  }
};
