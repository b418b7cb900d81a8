import type { Policy } from '../policy/model.js';
import type { LaneClaims } from './tokens.js';

export type Admission = { ok: true; lane: string } | { ok: false; code: 'auth_revoked' | 'forbidden'; detail: string };

/**
 * After the signature is good: is this lane admitted right now? Pure, and re-evaluated on every
 * request (the policy may have been reloaded since the token was first seen).
 */
export const admitLane = (
  claims: LaneClaims,
  policy: Pick<Policy, 'lanes' | 'revokedTokenIds'>,
  revoked: ReadonlySet<string>,
): Admission => {
  if (revoked.has(claims.jti)) return { ok: false, code: 'auth_revoked', detail: 'token id revoked' };
  const lane = policy.lanes[claims.lane];
  if (!lane) return { ok: false, code: 'auth_revoked', detail: 'lane not in policy' };
  if (!lane.enabled) return { ok: false, code: 'auth_revoked', detail: 'lane disabled' };
  if (lane.tokensNotBefore !== undefined && claims.iat < lane.tokensNotBefore) {
    return { ok: false, code: 'auth_revoked', detail: 'token issued before the lane cut-off' };
  }
  return { ok: true, lane: lane.name };
};
