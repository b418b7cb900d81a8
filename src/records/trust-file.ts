import { statSync } from 'node:fs';
import path from 'node:path';
import type { TrustOverride } from '../guard/trust.js';
import { LanegateError } from '../errors.js';
import { isObject, keepCorrupt, readRecord, recordsDir, writeAtomic } from './atomic.js';

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

const validTrust = (j: unknown): string | undefined => {
  if (!isObject(j)) return 'not an object';
  if (j.schema !== 1) return `schema ${JSON.stringify(j.schema)} is not 1`;
  if (!Array.isArray(j.overrides)) return 'no "overrides" list';
  const bad = j.overrides.findIndex((o) => !isOverride(o));
  return bad >= 0 ? `override ${bad + 1} is malformed` : undefined;
};

/**
 * The operator's overrides. Missing: none. Unreadable (or any override malformed): an ERROR
 * (records_corrupt), never "no overrides" in silence: a trust decision is a security decision.
 * `serve` and `check` refuse to start on it; a host that meets it at run time serves with no
 * overrides (refusing, never admitting) and says so.
 */
export const readTrust = (stateDir: string, keep = false): TrustOverride[] => {
  const file = trustFile(stateDir);
  const r = readRecord(file, validTrust);
  if (r.status === 'missing') return [];
  if (r.status === 'ok') return (r.json as { overrides: TrustOverride[] }).overrides;
  const copy = keep ? keepCorrupt(file) : undefined;
  throw new LanegateError(
    'records_corrupt',
    `${file} ${r.reason}${copy ? `; a copy is kept as ${copy}` : ''}. It holds the operators' trust overrides: restore a good copy, or delete it and re-run lanegate trust for each reviewed finding`,
  );
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

/**
 * The overrides as last read, re-read only when the file's mtime moves (the front judges lanes'
 * catalogs with them). Unreadable: none hold (a finding stays open, never the reverse).
 */
export const trustReader = (stateDir: () => string): (() => { stamp: string; list: readonly TrustOverride[] }) => {
  let seen = { stamp: '', list: [] as readonly TrustOverride[] };
  return () => {
    const stamp = String(trustVersion(stateDir()));
    if (stamp === seen.stamp) return seen;
    let list: readonly TrustOverride[] = [];
    try {
      list = readTrust(stateDir());
    } catch {
      // stays empty: fail closed (serve refuses to start on it; a later break refuses, never admits)
    }
    seen = { stamp, list };
    return seen;
  };
};
