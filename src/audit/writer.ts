import { mkdirSync } from 'node:fs';
import { type FileHandle, open, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AuditConfig } from '../policy/model.js';
import type { AuditGap, AuditRecord } from './record.js';

/** Records held while the disk is slow; past this they are counted and a gap marker says how many. */
const MAX_QUEUED = 50_000;

export const AUDIT_FILE = 'audit.jsonl';
export const auditDir = (stateDir: string): string => path.join(stateDir, 'audit');
/** The current file (n = 0) or rotated file n (1 = the newest rotated). */
export const auditFile = (dir: string, n: number): string => path.join(dir, n === 0 ? AUDIT_FILE : `audit.${n}.jsonl`);

export interface AuditWriterLog {
  warn: (obj: Record<string, unknown>, msg: string) => void;
}

/**
 * The audit trail's single writer (the front). A request only queues its record; a timer writes
 * the queue as one append (serialised off the event loop by libuv) at most every `flushMs`.
 * The file is append-only; past `maxBytes` it is renamed to audit.1.jsonl (older ones shift up to
 * `keep`, the oldest is dropped) and a new one started. Records that could not be written are
 * counted and a gap marker line says how many, so a missing stretch is never silent.
 */
export class AuditWriter {
  private queue: (AuditRecord | AuditGap)[] = [];
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private fh: FileHandle | undefined;
  private size = 0;
  private lastWarn = 0;

  constructor(
    private readonly dir: string,
    private readonly cfg: () => AuditConfig,
    private readonly log: AuditWriterLog,
    private readonly flushMs = 200,
  ) {}

  add(r: AuditRecord): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.dropped += 1;
      return;
    }
    this.queue.push(r);
    if (!this.timer && !this.running) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes what is queued (and what gets queued meanwhile); resolves when the queue is empty. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      if (this.queue.length > 0 && !this.timer) {
        this.timer = setTimeout(() => void this.flush(), this.flushMs);
        this.timer.unref();
      }
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    for (let round = 0; round < 1000 && this.queue.length > 0; round += 1) {
      if (this.dropped > 0) {
        this.queue.unshift({ time: new Date().toISOString(), gap: { dropped: this.dropped } });
        this.dropped = 0;
      }
      const batch = this.queue;
      this.queue = [];
      try {
        await this.write(batch.map((r) => `${JSON.stringify(r)}\n`));
      } catch (e) {
        await this.closeFile();
        // Not written: counted, and the gap marker tells the reader at the next write that works.
        this.dropped += batch.filter((r) => !('gap' in r)).length;
        const now = Date.now();
        if (now - this.lastWarn > 60_000) {
          this.lastWarn = now;
          this.log.warn(
            { event: 'audit_write_failed', detail: e instanceof Error ? ((e as NodeJS.ErrnoException).code ?? e.message) : 'unknown' },
            'audit records could not be written; they are counted and marked as a gap',
          );
        }
        return;
      }
    }
  }

  /** Appends lines, rotating first whenever the next chunk would take the file past maxBytes. */
  private async write(lines: string[]): Promise<void> {
    const { maxBytes } = this.cfg();
    let chunk = '';
    let chunkBytes = 0;
    for (const line of lines) {
      const n = Buffer.byteLength(line);
      if (this.size + chunkBytes + n > maxBytes && this.size + chunkBytes > 0) {
        if (chunk) await this.append(chunk, chunkBytes);
        chunk = '';
        chunkBytes = 0;
        await this.rotate();
      }
      chunk += line;
      chunkBytes += n;
    }
    if (chunk) await this.append(chunk, chunkBytes);
  }

  private async append(text: string, bytes: number): Promise<void> {
    const fh = await this.file();
    await fh.appendFile(text);
    this.size += bytes;
  }

  private async file(): Promise<FileHandle> {
    if (this.fh) return this.fh;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const name = auditFile(this.dir, 0);
    this.fh = await open(name, 'a', 0o600);
    this.size = (await this.fh.stat()).size;
    return this.fh;
  }

  private async closeFile(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close().catch(() => undefined);
  }

  private async rotate(): Promise<void> {
    await this.closeFile();
    const { keep } = this.cfg();
    for (let n = keep - 1; n >= 0; n -= 1) {
      const from = auditFile(this.dir, n);
      const exists = await stat(from).then(
        () => true,
        () => false,
      );
      if (exists) await rename(from, auditFile(this.dir, n + 1));
    }
    this.size = 0;
  }

  /** Writes everything queued and closes the file (the front stopping). */
  async close(): Promise<void> {
    await this.flush();
    await this.closeFile();
  }
}
