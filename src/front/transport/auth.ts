import type { CryptoKey } from 'jose';
import { admitLane } from '../../auth/admission.js';
import { type LaneClaims, verifyLaneToken } from '../../auth/tokens.js';
import { LanegateError } from '../../errors.js';
import type { Policy } from '../../policy/model.js';
import type { Revocations } from '../../records/token-records.js';

const MAX_CACHED = 10_000;

/**
 * Authenticates a request's bearer token to a lane. Signature checks are cached per token
 * (until its own expiry); admission (revocation, lane removed or disabled, cut-off) is decided
 * on EVERY request against the current policy, so a reload takes effect at once.
 */
export class LaneAuth {
  private readonly verified = new Map<string, LaneClaims>();
  private revoked: Set<string>;
  /** Kids a rotation retired → the instant (epoch s) after which their tokens are refused. */
  private retired: ReadonlyMap<string, number> = new Map();
  /** records/tokens.json as last read (token revoke), or why it could not be: then every lane is refused. */
  private records: Revocations | { unreadable: string } = { ids: new Set(), cutoffs: new Map() };

  constructor(
    private keys: ReadonlyMap<string, CryptoKey>,
    private readonly policy: () => Policy,
    private readonly issuer: string,
    private readonly audience: string,
  ) {
    this.revoked = new Set(policy().revokedTokenIds);
  }

  onPolicy(p: Policy): void {
    this.revoked = new Set(p.revokedTokenIds);
  }

  setKeys(keys: ReadonlyMap<string, CryptoKey>, retired: ReadonlyMap<string, number> = new Map()): void {
    this.keys = keys;
    this.retired = retired;
    this.verified.clear();
  }

  setRecords(r: Revocations | { unreadable: string }): void {
    this.records = r;
  }

  /** Why the token records refuse these claims (revoked id, before the lane's cut-off, records unreadable), if they do. */
  private recordsRefuse(claims: LaneClaims): string | undefined {
    const r = this.records;
    if ('unreadable' in r) return 'token records unreadable; every lane is refused until they are repaired';
    if (r.ids.has(claims.jti)) return 'token id revoked';
    const cut = r.cutoffs.get(claims.lane);
    return cut !== undefined && claims.iat < cut ? "token issued before the lane's revocation" : undefined;
  }

  /** A token signed by a key whose rotation grace has passed is refused. */
  private keyRetired(claims: LaneClaims, now = Math.floor(Date.now() / 1000)): boolean {
    const until = claims.kid === undefined ? undefined : this.retired.get(claims.kid);
    return until !== undefined && now > until;
  }

  /** Whether claims seen earlier are still admitted under the current policy (revocation, lane removed or disabled, cut-off). */
  stillAdmitted(claims: LaneClaims): boolean {
    return !this.keyRetired(claims) && this.recordsRefuse(claims) === undefined && admitLane(claims, this.policy(), this.revoked).ok;
  }

  /** The lane a bearer token admits now, with the claims it was verified with (sessions and streams keep them). */
  async authenticate(header: string | undefined): Promise<{ lane: string; claims: LaneClaims }> {
    if (!header) throw new LanegateError('auth_missing', 'no bearer token');
    // The scheme is case-insensitive (RFC 7235); the token is base64url JWT characters only.
    const m = /^bearer ([A-Za-z0-9_\-.]+)$/i.exec(header.trim());
    if (!m?.[1]) throw new LanegateError('auth_invalid', 'authorization is not a bearer token');
    const token = m[1];
    let claims = this.verified.get(token);
    const now = Math.floor(Date.now() / 1000);
    if (claims && claims.exp + 30 < now) {
      this.verified.delete(token);
      claims = undefined;
    }
    if (!claims) {
      claims = await verifyLaneToken(token, { keys: this.keys, issuer: this.issuer, audience: this.audience });
      if (this.verified.size >= MAX_CACHED) this.verified.clear();
      this.verified.set(token, claims);
    }
    if (this.keyRetired(claims)) throw new LanegateError('auth_revoked', 'signing key retired by a rotation');
    const refused = this.recordsRefuse(claims);
    if (refused) throw new LanegateError('auth_revoked', refused);
    const admission = admitLane(claims, this.policy(), this.revoked);
    if (!admission.ok) throw new LanegateError(admission.code === 'auth_revoked' ? 'auth_revoked' : 'forbidden', admission.detail);
    return { lane: admission.lane, claims };
  }
}
