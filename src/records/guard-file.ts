import path from 'node:path';
import type { Finding, Surface } from '../guard/scanner.js';
import type { SurfaceChange } from '../guard/hash.js';
import type { Refusal } from '../guard/refusal.js';
import { LanegateError } from '../errors.js';
import { isObject, keepCorrupt, readRecord, recordsDir, writeAtomic } from './atomic.js';

/** What the guard knows about one upstream: written by the front (single writer) from host reports. */
export interface GuardRecord {
  status: 'admitted' | 'refused';
  pinnedHash?: string;
  surfaceHash: string;
  surface: Surface;
  findings: Finding[];
  /** Findings an override covers (shown, not acted on). */
  trusted: Finding[];
  itemHashes: Record<string, string>;
  seenAt: string;
  /** Set when this judgment was of one lane's own child: it holds for that lane only. */
  lane?: string;
  /** The capability profile of the child whose surface is pinned (a server may gate tools on them). */
  profile?: string;
  drift: { at: string; from: string; to: string; changes: SurfaceChange[]; outcome: 'admitted' | 'refused' }[];
}

/** A server withheld from one lane by the front: what only that lane's whole catalog (across hosts) shows. */
export interface CatalogRecord {
  findings: Finding[];
  refusal: Refusal;
  seenAt: string;
}

export interface GuardFile {
  schema: 1;
  servers: Record<string, GuardRecord>;
  /** server → lane → why the front withholds it from that lane (absent: nothing withheld). */
  catalog?: Record<string, Record<string, CatalogRecord>>;
}

export const guardFile = (stateDir: string): string => path.join(recordsDir(stateDir), 'guard.json');

const validGuard = (j: unknown): string | undefined => {
  if (!isObject(j)) return 'not an object';
  if (j.schema !== 1) return `schema ${JSON.stringify(j.schema)} is not 1`;
  if (!isObject(j.servers)) return 'no "servers" object';
  for (const [name, r] of Object.entries(j.servers)) {
    if (!isObject(r) || (r.status !== 'admitted' && r.status !== 'refused') || typeof r.surfaceHash !== 'string' || !isObject(r.surface))
      return `the record of "${name}" is malformed`;
  }
  if (j.catalog !== undefined) {
    if (!isObject(j.catalog)) return '"catalog" is not an object';
    for (const [name, byLane] of Object.entries(j.catalog)) {
      if (!isObject(byLane) || Object.values(byLane).some((r) => !isObject(r) || !Array.isArray(r.findings) || !isObject(r.refusal)))
        return `the catalog record of "${name}" is malformed`;
    }
  }
  return undefined;
};

/**
 * records/guard.json. Missing: nothing scanned yet. Unreadable: an ERROR (records_corrupt) that
 * stops `serve` and `check`: it holds admission pins and drift history, security decisions that
 * must not vanish silently. `keep` copies the bad file aside (`<name>.corrupt-<timestamp>`).
 */
export const readGuard = (stateDir: string, keep = false): GuardFile => {
  const file = guardFile(stateDir);
  const r = readRecord(file, validGuard);
  if (r.status === 'missing') return { schema: 1, servers: {} };
  if (r.status === 'ok') return r.json as GuardFile;
  const copy = keep ? keepCorrupt(file) : undefined;
  throw new LanegateError(
    'records_corrupt',
    `${file} ${r.reason}${copy ? `; a copy is kept as ${copy}` : ''}. It holds the guard's admission pins: restore a good copy, or delete it to re-scan every upstream from scratch (pins and drift history are lost)`,
  );
};

/** The file's text: one serialisation for every writer. */
export const guardText = (g: GuardFile): string => `${JSON.stringify(g, null, 2)}\n`;

export const writeGuard = (stateDir: string, g: GuardFile): void => writeAtomic(guardFile(stateDir), guardText(g));

/** Drift history kept per server (newest last); older entries fall off. */
export const MAX_DRIFT = 50;
