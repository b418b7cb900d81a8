import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { LanegateError } from '../errors.js';
import { writeAtomic } from '../records/atomic.js';

/**
 * Lane-token signing keys live in `<stateDir>/keys`: `<kid>.private.jwk` (0600) is read only by
 * the operator CLI (`token issue`); the front reads `<kid>.public.jwk` files only. Several
 * public keys may be present at once: that is key rotation.
 */
const PRIVATE_SUFFIX = '.private.jwk';
const PUBLIC_SUFFIX = '.public.jwk';

export const keysDir = (stateDir: string): string => path.join(stateDir, 'keys');

const listKids = (dir: string, suffix: string): string[] => {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(suffix))
      .map((f) => f.slice(0, -suffix.length))
      .sort();
  } catch {
    return [];
  }
};

/** Creates a signing keypair if none exists. Returns the newest kid. */
export const ensureSigningKey = async (stateDir: string): Promise<string> => {
  const dir = keysDir(stateDir);
  const existing = listKids(dir, PRIVATE_SUFFIX);
  const newest = existing.at(-1);
  if (newest) return newest;
  return rotateSigningKey(stateDir);
};

/** Adds a new signing keypair; older public keys stay valid until removed. */
export const rotateSigningKey = async (stateDir: string): Promise<string> => {
  const dir = keysDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const kid = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}-${randomBytes(4).toString('hex')}`;
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const priv = { ...(await exportJWK(privateKey)), kid, alg: 'EdDSA', use: 'sig' };
  const pub = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
  // Whole or not at all (the front's state watcher may read the directory at any moment); a new kid
  // is random and timestamped, so no existing key is ever replaced.
  writeAtomic(path.join(dir, kid + PRIVATE_SUFFIX), JSON.stringify(priv), 0o600);
  writeAtomic(path.join(dir, kid + PUBLIC_SUFFIX), JSON.stringify(pub), 0o644);
  return kid;
};

export const loadPublicKeys = async (stateDir: string): Promise<Map<string, CryptoKey>> => {
  const dir = keysDir(stateDir);
  const keys = new Map<string, CryptoKey>();
  for (const kid of listKids(dir, PUBLIC_SUFFIX)) {
    const jwk = JSON.parse(readFileSync(path.join(dir, kid + PUBLIC_SUFFIX), 'utf8')) as JWK;
    if (jwk.d !== undefined) throw new LanegateError('key_missing', `public key file ${kid} holds private material; refusing`);
    keys.set(kid, (await importJWK(jwk, 'EdDSA')) as CryptoKey);
  }
  return keys;
};

export const loadSigningKey = async (stateDir: string): Promise<{ kid: string; key: CryptoKey }> => {
  const dir = keysDir(stateDir);
  const kid = listKids(dir, PRIVATE_SUFFIX).at(-1);
  if (!kid)
    throw new LanegateError('key_missing', `no signing key in ${dir}; run "lanegate serve" once or "lanegate token issue" creates one`);
  const jwk = JSON.parse(readFileSync(path.join(dir, kid + PRIVATE_SUFFIX), 'utf8')) as JWK;
  return { kid, key: (await importJWK(jwk, 'EdDSA')) as CryptoKey };
};

const UNTIL_SUFFIX = '.until';

/** Kids retired by a rotation, with the instant (epoch seconds) after which their tokens are refused. */
export const keyRetirements = (stateDir: string): Map<string, number> => {
  const dir = keysDir(stateDir);
  const out = new Map<string, number>();
  for (const kid of listKids(dir, UNTIL_SUFFIX)) {
    try {
      const j = JSON.parse(readFileSync(path.join(dir, kid + UNTIL_SUFFIX), 'utf8')) as { acceptedUntil?: unknown };
      const t = Date.parse(String(j.acceptedUntil));
      // An unreadable retirement fails closed: the key is retired now.
      out.set(kid, Number.isFinite(t) ? Math.floor(t / 1000) : 0);
    } catch {
      out.set(kid, 0);
    }
  }
  return out;
};

export interface KeyInfo {
  kid: string;
  created: string;
  /** Tokens signed by it are refused after this instant (ISO), if a rotation retired it. */
  acceptedUntil?: string;
  /** `token issue` signs with this one (the newest private key). */
  signing: boolean;
}

/** The keys in the state dir, oldest first. Kids begin with their creation time (UTC). */
export const listKeys = (stateDir: string): KeyInfo[] => {
  const dir = keysDir(stateDir);
  const retired = keyRetirements(stateDir);
  const signing = listKids(dir, PRIVATE_SUFFIX).at(-1);
  return listKids(dir, PUBLIC_SUFFIX).map((kid) => {
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})/.exec(kid);
    const until = retired.get(kid);
    return {
      kid,
      created: m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : 'unknown',
      ...(until !== undefined ? { acceptedUntil: new Date(until * 1000).toISOString() } : {}),
      signing: kid === signing,
    };
  });
};

/**
 * Rotation: a new signing key; every older key that is not retired yet is accepted until
 * `keepOldS` seconds from now, then refused. Nothing valid ends at the rotation itself.
 */
export const rotateKeys = async (
  stateDir: string,
  keepOldS: number,
  now = Date.now(),
): Promise<{ kid: string; retired: { kid: string; acceptedUntil: string }[] }> => {
  const dir = keysDir(stateDir);
  const before = listKids(dir, PUBLIC_SUFFIX);
  const already = keyRetirements(stateDir);
  const kid = await rotateSigningKey(stateDir);
  const acceptedUntil = new Date(Math.floor(now / 1000 + keepOldS) * 1000).toISOString();
  const retired = before.filter((k) => !already.has(k)).map((k) => ({ kid: k, acceptedUntil }));
  // Atomic: the state watcher that read a half-written .until failed closed and ended the sessions
  // of a key still accepted (a full test run caught it: lane-limits' key rotation).
  for (const r of retired) writeAtomic(path.join(dir, r.kid + UNTIL_SUFFIX), `${JSON.stringify({ acceptedUntil })}\n`, 0o644);
  return { kid, retired };
};
