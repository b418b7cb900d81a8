import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { keysDir } from '../../auth/keys.js';

/**
 * The operator token guards /metrics, /api and /dashboard. The front stores and holds only its
 * SHA-256; the token itself is printed once, when it is created. A lane token (a JWT) can
 * never match: it is a different credential checked by a different rule.
 */
const FILE = 'operator-token.sha256';
/** The token itself, 0600, for the operator's CLI (`lanegate measure`); the front never reads it. */
export const OPERATOR_TOKEN_FILE = 'operator.token';

export const readOperatorToken = (stateDir: string): string | undefined => {
  try {
    return readFileSync(path.join(keysDir(stateDir), OPERATOR_TOKEN_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
};

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * The operator token: read if it exists; otherwise made in memory and written only by `persist`,
 * which `serve` calls once the port is bound, so a start that fails (EADDRINUSE) leaves no token
 * that was never printed.
 */
export const ensureOperatorToken = (stateDir: string): { created?: string; hash: Buffer; persist: () => void } => {
  const dir = keysDir(stateDir);
  const file = path.join(dir, FILE);
  try {
    return { hash: Buffer.from(readFileSync(file, 'utf8').trim(), 'hex'), persist: () => undefined };
  } catch {
    const token = `lgo_${randomBytes(24).toString('base64url')}`;
    const hash = digest(token);
    return {
      created: token,
      hash,
      persist: () => {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(file, hash.toString('hex'), { mode: 0o600 });
        writeFileSync(path.join(dir, OPERATOR_TOKEN_FILE), `${token}\n`, { mode: 0o600 });
      },
    };
  }
};

export const operatorTokenMatches = (header: string | undefined, hash: Buffer): boolean => {
  // The scheme is case-insensitive (RFC 9110), as on /mcp.
  const m = /^bearer +(lgo_[A-Za-z0-9_-]+)$/i.exec(header?.trim() ?? '');
  if (!m?.[1]) return false;
  const d = digest(m[1]);
  return d.length === hash.length && timingSafeEqual(d, hash);
};
