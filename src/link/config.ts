import { META } from './protocol.js';
import type { ServerConfig } from '../policy/model.js';
import type { Surface } from '../guard/scanner.js';
import type { Placement } from '../shareability/placement.js';

/**
 * What the front hands a host at spawn (in LANEGATE_HOST_CONFIG). No secret values: only
 * the paths of the secret files this host, and only this host, will read.
 */
export interface HostConfig {
  key: string;
  domain: string;
  /** Set for a per-lane host: it serves this lane only. */
  lane?: string;
  stateDir: string;
  secrets: { name: string; file: string }[];
  servers: ServerConfig[];
  placements: Record<string, Placement>;
  /** For each shared server, the demonstrated scope (`tools/call echo`, …): a shared child runs only these. */
  scopes: Record<string, string[]>;
  /** lane → the servers of this host in its loadout. */
  lanes: Record<string, string[]>;
  /** Surfaces pinned at earlier admissions: a different surface now is drift. */
  pins: Record<string, { hash: string; surface: Surface; profile?: string }>;
  /** gateway.limits.resultBytes: the largest answer a child may give (the host stops reading past it). */
  resultBytes: number;
  /** gateway.limits.unsentBytesPerLane and unsentBytes: a lane's answers (and all lanes') the host holds while it checks them. */
  answerBytes: { perLane: number; total: number };
}

export const HOST_CONFIG_ENV = 'LANEGATE_HOST_CONFIG';
export const CALLER_META = META.caller;
export const CALLER_IDENTITY_EXT = META.callerIdentity;

/** The environment an upstream may inherit; everything else comes from the policy. */
export const ENV_ALLOWLIST = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SYSTEMROOT'];
