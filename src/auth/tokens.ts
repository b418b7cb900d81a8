import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type CryptoKey, type JWTHeaderParameters } from 'jose';
import { LanegateError } from '../errors.js';

export const TOKEN_ALG = 'EdDSA';
export const CLOCK_TOLERANCE_S = 30;

export interface LaneClaims {
  lane: string;
  jti: string;
  iat: number;
  exp: number;
  /** The signing key's id (rotation retires kids). */
  kid?: string;
}

export interface IssueInput {
  lane: string;
  ttlSeconds: number;
  issuer: string;
  audience: string;
  kid: string;
  key: CryptoKey;
  now?: number;
}

/** A lane token says "I am lane L" and nothing more: no tool list, no upstream credential. */
export const issueLaneToken = async (i: IssueInput): Promise<{ token: string; jti: string; exp: number }> => {
  const now = i.now ?? Math.floor(Date.now() / 1000);
  const jti = randomUUID();
  const exp = now + i.ttlSeconds;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: TOKEN_ALG, kid: i.kid, typ: 'JWT' })
    .setIssuer(i.issuer)
    .setAudience(i.audience)
    .setSubject(i.lane)
    .setJti(jti)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(exp)
    .sign(i.key);
  return { token, jti, exp };
};

export interface VerifierOptions {
  keys: ReadonlyMap<string, CryptoKey>;
  issuer: string;
  audience: string;
}

/**
 * Verifies a lane token: the algorithm is pinned (EdDSA; `none` and HS* with the public key
 * are refused by construction), `kid` must name a loaded public key, and `iss`, `aud`, `exp`,
 * `iat`, `sub`, `jti` are required. The error detail names the failed check, never the token.
 */
export const verifyLaneToken = async (token: string, o: VerifierOptions): Promise<LaneClaims> => {
  // One token, one spelling: base64url has spare bits in its last character, and a decoder that
  // ignores them would accept several strings for one signature.
  if (!token.split('.').every((part) => Buffer.from(part, 'base64url').toString('base64url') === part))
    throw new LanegateError('auth_invalid', 'token is not in canonical base64url');
  try {
    let kid: string | undefined;
    const { payload } = await jwtVerify(
      token,
      (header: JWTHeaderParameters) => {
        kid = header.kid;
        const key = header.kid === undefined ? undefined : o.keys.get(header.kid);
        if (!key) throw new LanegateError('auth_invalid', 'unknown key id');
        return key;
      },
      {
        algorithms: [TOKEN_ALG],
        issuer: o.issuer,
        audience: o.audience,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['iss', 'aud', 'exp', 'iat', 'sub', 'jti'],
      },
    );
    // jose checks that the claims exist; their types and a future issue time are checked here
    // (a `sub` of ["lane"] would otherwise read as "lane").
    if (typeof payload.sub !== 'string' || payload.sub.length === 0)
      throw new LanegateError('auth_invalid', 'claim check failed: sub (not a string)');
    if (typeof payload.jti !== 'string' || payload.jti.length === 0)
      throw new LanegateError('auth_invalid', 'claim check failed: jti (not a string)');
    if (typeof payload.iat !== 'number' || payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_S)
      throw new LanegateError('auth_invalid', 'claim check failed: iat (issued in the future)');
    return {
      lane: payload.sub,
      jti: payload.jti,
      iat: Number(payload.iat),
      exp: Number(payload.exp),
      ...(kid !== undefined ? { kid } : {}),
    };
  } catch (e) {
    if (e instanceof LanegateError) throw e;
    throw new LanegateError('auth_invalid', describeJoseError(e));
  }
};

const describeJoseError = (e: unknown): string => {
  if (e instanceof errors.JWTExpired) return 'token expired';
  if (e instanceof errors.JWTClaimValidationFailed) return `claim check failed: ${e.claim} (${e.reason})`;
  if (e instanceof errors.JOSEAlgNotAllowed) return 'algorithm not allowed';
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'bad signature';
  if (e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid) return 'malformed token';
  if (e instanceof errors.JOSEError) return `token refused (${e.code})`;
  return 'token refused';
};
