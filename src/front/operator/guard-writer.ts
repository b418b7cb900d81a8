import type { Logger } from 'pino';
import { writeAtomicAsync } from '../../records/atomic.js';
import { type GuardFile, guardFile, guardText, writeGuard } from '../../records/guard-file.js';

/** How long a change of an admitted surface may wait to reach guard.json (changes meanwhile share one write). */
export const GUARD_WRITE_DELAY_MS = 1000;

/**
 * Writes guard.json for the front. A verdict that changed (a server refused, or admitted again) is
 * written at once, before anything else happens; a surface that changed under the same verdict
 * (a server adding resources as it is used) is written at most once a second, off the event
 * loop. Writing the whole file synchronously at every list change made each call of a lane that
 * grew a server's resources cost every lane a stringify and three fsyncs of a file that grew with it.
 */
export class GuardWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;

  constructor(
    private readonly guard: GuardFile,
    private readonly stateDir: string,
    private readonly log: Logger,
  ) {}

  /** The guard file changed; `verdictChanged` writes it now. */
  changed(verdictChanged: boolean): void {
    if (verdictChanged) {
      clearTimeout(this.timer);
      this.timer = undefined;
      // A batched write still in flight holds older text and renames last: write once more after it.
      this.dirty = this.writing !== undefined;
      if (this.dirty) this.timer = setTimeout(() => void this.flush(), 0);
      try {
        writeGuard(this.stateDir, this.guard);
      } catch (e) {
        this.failed(e);
      }
      return;
    }
    this.dirty = true;
    this.timer ??= setTimeout(() => void this.flush(), GUARD_WRITE_DELAY_MS);
  }

  /** Writes what is pending (at close, and when the delay ends). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = writeAtomicAsync(guardFile(this.stateDir), guardText(this.guard))
      .catch((e: unknown) => this.failed(e))
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
  }

  private failed(e: unknown): void {
    this.log.error(
      { event: 'records_write_failed', file: 'guard.json', detail: e instanceof Error ? e.message : String(e) },
      'could not write guard records',
    );
  }
}
