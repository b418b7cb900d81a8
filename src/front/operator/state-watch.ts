import { type FSWatcher, mkdirSync, readdirSync, statSync, watch } from 'node:fs';
import { keyRetirements, keysDir, loadPublicKeys } from '../../auth/keys.js';
import { isLanegateError } from '../../errors.js';
import type { Logger } from '../../log/logger.js';
import { recordsDir } from '../../records/atomic.js';
import { readTokenRecords, revocationsOf } from '../../records/token-records.js';
import type { StateWatchParts } from '../front-parts.js';
import { hostsForLane } from '../../routing/route.js';

const POLL_MS = 250;

/** What changed is seen by content stamps, not events: fs.watch may miss or merge events, a stat never lies. */
const stamp = (file: string): string => {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? 'error';
  }
};
const keysStamp = (dir: string): string => {
  try {
    return readdirSync(dir)
      .sort()
      .map((f) => `${f}@${stamp(`${dir}/${f}`)}`)
      .join('|');
  } catch {
    return 'none';
  }
};

/**
 * The running front follows the operator CLI's state without a reload: `token revoke` (records/
 * tokens.json) and `key rotate` (keys/) take effect within a second. fs.watch wakes it at once;
 * a stat every 250 ms catches what watching misses (network filesystems, a recreated directory).
 * Token records that cannot be read refuse every lane (and end what is open) until they can.
 */
export class StateWatch {
  private tokensStamp = '';
  private keyStamp = '';
  private trustStamp = '';
  private timer?: NodeJS.Timeout;
  private watchers: FSWatcher[] = [];
  private running = false;
  private again = false;
  private broken = false;

  constructor(
    private readonly gw: StateWatchParts,
    private readonly log: Logger,
  ) {}

  private get stateDir(): string {
    return this.gw.policy.gateway.stateDir;
  }

  /** Reads both once (throws if the token records are unreadable: serve refuses to start), then follows them. */
  async start(): Promise<void> {
    this.keyStamp = keysStamp(keysDir(this.stateDir));
    this.tokensStamp = stamp(`${recordsDir(this.stateDir)}/tokens.json`);
    this.trustStamp = stamp(`${recordsDir(this.stateDir)}/trust.json`);
    this.gw.auth.setRecords(revocationsOf(readTokenRecords(this.stateDir, true)));
    for (const dir of [recordsDir(this.stateDir), keysDir(this.stateDir)]) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        this.watchers.push(watch(dir, { persistent: false }, () => void this.check()).on('error', () => undefined));
      } catch {
        // the stat poll still sees every change
      }
    }
    this.timer = setInterval(() => void this.check(), POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }

  /** Applies what changed since the last look; one pass at a time, a change during it runs one more. */
  async check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      for (let i = 0; i < 3; i += 1) {
        this.again = false;
        await this.apply();
        if (!this.again) break;
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * `lanegate trust` changed the overrides: the lanes' catalogs are judged again with them (the
   * hosts re-read them on their own), and lanes judged across hosts are told their lists changed.
   */
  private trustChanged(now: string): void {
    if (now === this.trustStamp) return;
    this.trustStamp = now;
    this.gw.catalog.clear();
    for (const lane of Object.keys(this.gw.policy.lanes))
      if (hostsForLane(this.gw.policy, lane).size > 1)
        this.gw.sessions.notifyLane(lane, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }

  private async apply(): Promise<void> {
    const dir = this.stateDir;
    const t = stamp(`${recordsDir(dir)}/tokens.json`);
    const k = keysStamp(keysDir(dir));
    this.trustChanged(stamp(`${recordsDir(dir)}/trust.json`));
    if (t === this.tokensStamp && k === this.keyStamp && !this.broken) return;
    if (k !== this.keyStamp) {
      try {
        const keys = await loadPublicKeys(dir);
        this.gw.auth.setKeys(keys, keyRetirements(dir));
        this.keyStamp = k;
        this.log.info({ event: 'keys_changed', kids: [...keys.keys()] }, `signing keys changed: ${keys.size} public key(s) accepted`);
      } catch (e) {
        // A half-written key: the old keys keep serving, the next look retries.
        this.log.warn(
          { event: 'keys_unreadable', detail: isLanegateError(e) ? e.detail : String(e) },
          'keys could not be read; the previous keys stay',
        );
      }
    }
    this.tokensStamp = t;
    try {
      this.gw.auth.setRecords(revocationsOf(readTokenRecords(dir)));
      if (this.broken) this.log.info({ event: 'token_records_readable' }, 'token records readable again; lanes are admitted');
      this.broken = false;
    } catch (e) {
      this.gw.auth.setRecords({ unreadable: isLanegateError(e) ? e.detail : String(e) });
      if (!this.broken)
        this.log.error(
          { event: 'token_records_unreadable', detail: isLanegateError(e) ? e.detail : String(e) },
          'token records unreadable: every lane is refused',
        );
      this.broken = true;
    }
    const ended = this.gw.sessions.endRevoked((cl) => this.gw.auth.stillAdmitted(cl));
    if (ended > 0)
      this.log.info({ event: 'sessions_revoked', ended }, `${ended} session(s) or stream(s) ended: their token is no longer admitted`);
  }
}
