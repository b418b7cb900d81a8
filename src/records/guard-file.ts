import path from 'node:path';
import type { Finding, Surface } from '../guard/scanner.js';
import type { SurfaceChange } from '../guard/hash.js';
import { readJson, recordsDir, writeAtomic } from './atomic.js';

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
  drift: { at: string; from: string; to: string; changes: SurfaceChange[]; outcome: 'admitted' | 'refused' }[];
}

export interface GuardFile {
  schema: 1;
  servers: Record<string, GuardRecord>;
}

export const guardFile = (stateDir: string): string => path.join(recordsDir(stateDir), 'guard.json');

export const readGuard = (stateDir: string): GuardFile => {
  const j = readJson(guardFile(stateDir)) as GuardFile | undefined;
  if (j?.schema !== 1 || typeof j.servers !== 'object' || j.servers === null) return { schema: 1, servers: {} };
  return j;
};

export const writeGuard = (stateDir: string, g: GuardFile): void => writeAtomic(guardFile(stateDir), `${JSON.stringify(g, null, 2)}\n`);

/** Drift history kept per server (newest last); older entries fall off. */
export const MAX_DRIFT = 50;
