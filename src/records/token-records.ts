import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LanegateError } from '../errors.js';
import { isObject, keepCorrupt, readRecord, recordsDir, writeAtomic } from './atomic.js';

/**
 * records/tokens.json: which lane tokens were issued (id, lane, key, issued, expires; never the
 * token itself) and which are revoked, by id or by a lane's cut-off. Written by the operator CLI
 * (`token issue`, `token revoke`), read by the running front, which applies it within a second.
 * Missing: nothing issued or revoked yet. Unreadable: an error, never "nothing revoked": `serve`
 * and `check` refuse it, and a running front refuses every lane until it is repaired.
 */
export interface IssuedToken {
  id: string;
  lane: string;
  kid: string;
  issued: string;
  expires: string;
}

export interface TokenRecords {
  schema: 1;
  issued: IssuedToken[];
  /** Token id -> when it was revoked (ISO). */
  revoked: Record<string, string>;
  /** Lane -> instant (ISO): tokens of that lane issued before it are refused. */
  laneCutoffs: Record<string, string>;
}

export const tokensFile = (stateDir: string): string => path.join(recordsDir(stateDir), 'tokens.json');

export const emptyTokenRecords = (): TokenRecords => ({ schema: 1, issued: [], revoked: {}, laneCutoffs: {} });

const isIssued = (o: unknown): boolean =>
  isObject(o) &&
  ['id', 'lane', 'kid', 'issued', 'expires'].every((k) => typeof o[k] === 'string') &&
  !Number.isNaN(Date.parse(String(o.expires)));

const isInstantMap = (o: unknown): boolean =>
  isObject(o) && Object.values(o).every((v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)));

const validTokens = (j: unknown): string | undefined => {
  if (!isObject(j)) return 'not an object';
  if (j.schema !== 1) return `schema ${JSON.stringify(j.schema)} is not 1`;
  if (!Array.isArray(j.issued)) return 'no "issued" list';
  const bad = j.issued.findIndex((o) => !isIssued(o));
  if (bad >= 0) return `issued token ${bad + 1} is malformed`;
  if (!isInstantMap(j.revoked)) return '"revoked" is not a map of token id to instant';
  if (!isInstantMap(j.laneCutoffs)) return '"laneCutoffs" is not a map of lane to instant';
  return undefined;
};

export const readTokenRecords = (stateDir: string, keep = false): TokenRecords => {
  const file = tokensFile(stateDir);
  const r = readRecord(file, validTokens);
  if (r.status === 'missing') return emptyTokenRecords();
  if (r.status === 'ok') return r.json as TokenRecords;
  const copy = keep ? keepCorrupt(file) : undefined;
  throw new LanegateError(
    'records_corrupt',
    `${file} ${r.reason}${copy ? `; a copy is kept as ${copy}` : ''}. It holds which lane tokens are revoked, so every lane is refused until it reads: restore a good copy, or delete it and revoke again (lanegate token revoke --lane L cuts off a lane's older tokens)`,
  );
};

/** Issued records expired this long ago are dropped on the next write (an expired token is refused anyway). */
const KEEP_EXPIRED_MS = 7 * 86_400_000;

const LOCK_WAIT_MS = 5000;
const LOCK_STALE_MS = 30_000;

/**
 * One writer at a time (`token issue` and `token revoke` may run at once, from two terminals or a
 * script): a lock file made with O_EXCL, naming its pid. A lock whose writer is gone, or older than
 * any write takes, is taken over. Bounded: after 5 s the change fails rather than risk losing one.
 */
const withLock = <T>(file: string, fn: () => T): T => {
  const lock = `${file}.lock`;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (lockIsStale(lock)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > until)
        throw new LanegateError('records_corrupt', `${lock} is held by another lanegate command; retry, or remove it if none is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
};

const lockIsStale = (lock: string): boolean => {
  try {
    const pid = Number(readFileSync(lock, 'utf8'));
    if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) return true;
    process.kill(pid, 0);
    return false;
  } catch (e) {
    // ESRCH: its writer is gone. EPERM: alive (another user). Unreadable just now: being replaced.
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

/** Read, change, write atomically, under the lock. Throws on an unreadable file: a change never starts from "nothing revoked". */
export const updateTokenRecords = (stateDir: string, change: (r: TokenRecords) => void, now = Date.now()): TokenRecords =>
  withLock(tokensFile(stateDir), () => applyChange(stateDir, change, now));

const applyChange = (stateDir: string, change: (r: TokenRecords) => void, now: number): TokenRecords => {
  const r = readTokenRecords(stateDir);
  change(r);
  const keep = new Set<string>();
  r.issued = r.issued.filter((t) => {
    const live = Date.parse(t.expires) + KEEP_EXPIRED_MS > now;
    if (live) keep.add(t.id);
    return live;
  });
  // A revocation outlives its issued record only while that token could still be valid.
  for (const id of Object.keys(r.revoked))
    if (!keep.has(id) && Date.parse(r.revoked[id] ?? '') + 400 * 86_400_000 < now) delete r.revoked[id];
  writeAtomic(tokensFile(stateDir), `${JSON.stringify(r, null, 2)}\n`);
  return r;
};

/** What admission needs from the records: revoked ids, and each lane's cut-off (epoch seconds). */
export interface Revocations {
  ids: ReadonlySet<string>;
  cutoffs: ReadonlyMap<string, number>;
}

export const revocationsOf = (r: TokenRecords): Revocations => ({
  ids: new Set(Object.keys(r.revoked)),
  cutoffs: new Map(Object.entries(r.laneCutoffs).map(([lane, at]) => [lane, Math.floor(Date.parse(at) / 1000)])),
});
