import type { DomainConfig, ServerConfig } from '../policy/model.js';

export type Placement = 'shared' | 'dedicated';

/** Evidence gathered about a server under its current launch identity. Empty until measured. */
export interface PlacementEvidence {
  /** A demonstration passed under the current launch identity. */
  demonstrated: boolean;
  /** The hazard ledger holds an observation under the current launch identity. */
  hazard: boolean;
  /** The guard admitted the server's surface. */
  guardAdmitted: boolean;
}

export const NO_EVIDENCE: PlacementEvidence = { demonstrated: false, hazard: false, guardAdmitted: false };

export type PlacementAxis = 'trust_domain' | 'operator' | 'launch' | 'statelessness' | 'ledger' | 'guard';

export interface PlacementDecision {
  placement: Placement;
  /** Every axis that refuses sharing, in the order a reviewer reads them. Empty iff shared. */
  refusedBy: PlacementAxis[];
}

/**
 * The two-axis gate: shared iff the domain is of kind shared AND the server is demonstrated
 * stateless under its current identity AND the ledger has nothing against it AND the
 * operator left `share: auto` AND the launch is not per-lane AND the guard admitted it.
 * Pure: no IO, no clock, no config reads.
 */
export const decidePlacement = (
  server: Pick<ServerConfig, 'share' | 'perLaneLaunch'>,
  domain: Pick<DomainConfig, 'kind' | 'perLane'>,
  evidence: PlacementEvidence,
): PlacementDecision => {
  const refusedBy: PlacementAxis[] = [];
  if (domain.kind !== 'shared' || domain.perLane) refusedBy.push('trust_domain');
  if (server.share === 'never') refusedBy.push('operator');
  if (server.perLaneLaunch) refusedBy.push('launch');
  if (!evidence.demonstrated) refusedBy.push('statelessness');
  if (evidence.hazard) refusedBy.push('ledger');
  if (!evidence.guardAdmitted) refusedBy.push('guard');
  return { placement: refusedBy.length === 0 ? 'shared' : 'dedicated', refusedBy };
};
