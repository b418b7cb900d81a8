import { mkdirSync } from 'node:fs';
import { type FileHandle, open, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AuditConfig } from '../policy/model.js';
import type { AuditGap, AuditRecord, AuditRotation } from './record.js';

/** Records held while the disk is slow; past this they are counted and a gap marker says how many. */
const MAX_QUEUED = 50_000;

/** The gateway's own file: gap and rotation markers (a lane name starts with a letter, never "_"). */
export const GATEWAY_STREAM = '_gateway';
export const auditDir = (stateDir: string): string => path.join(stateDir, 'audit');
/** A stream's current file (n = 0) or its rotated file n (1 = the newest rotated): each lane has its own. */
export const auditFile = (dir: string, n: number, stream: string = GATEWAY_STREAM): string =>
  path.join(dir, n === 0 ? `${stream}.jsonl` : `${stream}.${n}.jsonl`);

type Line = AuditRecord | AuditGap | AuditRotation;

/** The time of a file's first record (read from its first 4 KiB), if it has one. */
const firstTime = async (file: string): Promise<string | undefined> => {
  try {
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(4096);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return /"time":"([^"]{1,40})"/.exec(buf.toString('utf8', 0, bytesRead))?.[1];
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
};
const streamOf = (r: Line): string => ('lane' in r ? r.lane : GATEWAY_STREAM);

export interface AuditWriterLog {
  warn: (obj: Record<string, unknown>, msg: string) => void;
}

/**
 * The audit trail's single writer (the front). A request only queues its record; a timer writes
 * the queue as appends (serialised off the event loop by libuv) at most every `flushMs`. Each lane
 * has its own append-only file, <lane>.jsonl: past `maxBytes` it is renamed to <lane>.1.jsonl
 * (older ones shift up to `keep`) and a new one started. So one lane's volume rotates out only its
 * own history (attack round 7: one lane's 4,000 requests a second had rotated every other lane's
 * records out of a shared file in 40 s), and when a lane's oldest file is dropped a rotation
 * marker in _gateway.jsonl says so. Records that could not be written are counted and a gap
 * marker says how many, so a missing stretch is never silent.
 */
export class AuditWriter {
  private queue: Line[] = [];
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Each stream's open file and its size. */
  private readonly files = new Map<string, { fh: FileHandle; size: number }>();
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
      const failed = await this.write(batch);
      if (failed) {
        this.warnFailed(failed);
        return;
      }
    }
  }

  private warnFailed(e: unknown): void {
    const now = Date.now();
    if (now - this.lastWarn <= 60_000) return;
    this.lastWarn = now;
    this.log.warn(
      { event: 'audit_write_failed', detail: e instanceof Error ? ((e as NodeJS.ErrnoException).code ?? e.message) : 'unknown' },
      'audit records could not be written; they are counted and marked as a gap',
    );
  }

  /**
   * Appends each stream's lines to its own file, rotating first whenever the next chunk would take
   * it past maxBytes. A stream whose write fails costs only its own lines: its records not written
   * are counted for the gap marker (as is the count a gap marker that was not written carried), and
   * its markers are queued again; the other streams are written. Returns the first failure.
   */
  private async write(batch: Line[]): Promise<unknown> {
    const byStream = new Map<string, Line[]>();
    for (const r of batch) {
      const k = streamOf(r);
      const lines = byStream.get(k) ?? [];
      if (lines.length === 0) byStream.set(k, lines);
      lines.push(r);
    }
    let failure: unknown;
    for (const [stream, lines] of byStream) {
      const done = { lines: 0 };
      try {
        await this.writeStream(stream, lines, done);
      } catch (e) {
        failure ??= e;
        await this.closeFile(stream);
        for (const r of lines.slice(done.lines)) {
          if ('lane' in r) this.dropped += 1;
          else if ('gap' in r) this.dropped += r.gap.dropped;
          else this.queue.push(r);
        }
      }
    }
    return failure;
  }

  /** Writes a stream's lines in order; `done.lines` counts those appended, for a failure midway. */
  private async writeStream(stream: string, lines: Line[], done: { lines: number }): Promise<void> {
    const { maxBytes } = this.cfg();
    let chunk = '';
    let chunkBytes = 0;
    let inChunk = 0;
    for (const r of lines) {
      const line = `${JSON.stringify(r)}\n`;
      const n = Buffer.byteLength(line);
      const size = (await this.file(stream)).size;
      if (size + chunkBytes + n > maxBytes && size + chunkBytes > 0) {
        if (chunk) await this.append(stream, chunk, chunkBytes);
        done.lines += inChunk;
        chunk = '';
        chunkBytes = 0;
        inChunk = 0;
        await this.rotate(stream);
      }
      chunk += line;
      chunkBytes += n;
      inChunk += 1;
    }
    if (chunk) await this.append(stream, chunk, chunkBytes);
    done.lines += inChunk;
  }

  private async append(stream: string, text: string, bytes: number): Promise<void> {
    const f = await this.file(stream);
    await f.fh.appendFile(text);
    f.size += bytes;
  }

  private async file(stream: string): Promise<{ fh: FileHandle; size: number }> {
    const open_ = this.files.get(stream);
    if (open_) return open_;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const fh = await open(auditFile(this.dir, 0, stream), 'a', 0o600);
    const f = { fh, size: (await fh.stat()).size };
    this.files.set(stream, f);
    return f;
  }

  private async closeFile(stream?: string): Promise<void> {
    const streams = stream === undefined ? [...this.files.keys()] : [stream];
    for (const k of streams) {
      const f = this.files.get(k);
      this.files.delete(k);
      await f?.fh.close().catch(() => undefined);
    }
  }

  private async rotate(stream: string): Promise<void> {
    await this.closeFile(stream);
    const { keep } = this.cfg();
    const oldest = auditFile(this.dir, keep, stream);
    const dropped = await stat(oldest).then(
      (st) => st.size,
      () => -1,
    );
    // The oldest file is about to go: the gateway's own file keeps a trace of it (never its own):
    // the lane's history before its oldest remaining record is gone.
    if (dropped >= 0 && stream !== GATEWAY_STREAM) {
      const now = new Date().toISOString();
      const before = (await firstTime(auditFile(this.dir, keep - 1, stream))) ?? now;
      this.queue.push({ time: now, rotated: { lane: stream, bytes: dropped, before } });
    }
    for (let n = keep - 1; n >= 0; n -= 1) {
      const from = auditFile(this.dir, n, stream);
      const exists = await stat(from).then(
        () => true,
        () => false,
      );
      if (exists) await rename(from, auditFile(this.dir, n + 1, stream));
    }
  }

  /** Writes everything queued and closes the file (the front stopping). */
  async close(): Promise<void> {
    await this.flush();
    await this.closeFile();
  }
}
