import {
  closeSync,
  copyFileSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';

let seq = 0;
/** A temp name no other writer (another process, or this one's other write in flight) shares. */
const tempOf = (file: string): string => {
  seq += 1;
  return `${file}.${process.pid}.${Date.now()}.${seq}.tmp`;
};

const fsyncDir = (dir: string): void => {
  try {
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // directory fsync is best effort (not supported everywhere)
  }
};

/** Write-temp, fsync, rename, fsync the directory: a reader sees the old file or the new one, never half of one. */
export const writeAtomic = (file: string, content: string, mode = 0o600): void => {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = tempOf(file);
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  fsyncDir(path.dirname(file));
};

/** The same contract as writeAtomic, without blocking the event loop. */
export const writeAtomicAsync = async (file: string, content: string, mode = 0o600): Promise<void> => {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = tempOf(file);
  const fh = await open(tmp, 'w', mode);
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  const dir = await open(path.dirname(file), 'r').catch(() => undefined);
  if (dir)
    await dir
      .sync()
      .catch(() => undefined)
      .finally(() => dir.close());
};

/**
 * A records file as read: `missing` (nothing recorded yet), `ok`, or `corrupt` (it exists but
 * could not be read, parsed or schema-checked). A corrupt file NEVER reads as empty: each
 * records type decides what "unreadable" means for it, always the unsafe-to-share side.
 */
export type RecordRead = { status: 'missing' } | { status: 'ok'; json: unknown } | { status: 'corrupt'; reason: string };

export const readRecord = (file: string, valid: (json: unknown) => string | undefined): RecordRead => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    return { status: 'corrupt', reason: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 'corrupt', reason: `is not valid JSON (${text.length} bytes)` };
  }
  const bad = valid(json);
  return bad === undefined ? { status: 'ok', json } : { status: 'corrupt', reason: `fails its schema: ${bad}` };
};

/** An unreadable records file, as logged and shown: which file, why, where its copy is kept, what to do. */
export interface RecordProblem {
  file: string;
  reason: string;
  copy?: string;
  remedy: string;
}

/**
 * Keeps a corrupt file as `<name>.corrupt-<timestamp>` beside it (a copy: the next write may
 * replace the original, never the copy). A byte-identical copy already kept is reused, so a
 * restart loop does not fill the disk. Returns the copy's path, or undefined if none could be made.
 */
export const keepCorrupt = (file: string, now = new Date()): string | undefined => {
  const dir = path.dirname(file);
  const base = path.basename(file);
  try {
    const bytes = readFileSync(file);
    for (const f of readdirSync(dir)) {
      if (f.startsWith(`${base}.corrupt-`) && readFileSync(path.join(dir, f)).equals(bytes)) return path.join(dir, f);
    }
    const copy = path.join(dir, `${base}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`);
    copyFileSync(file, copy);
    fsyncDir(dir);
    return copy;
  } catch {
    return undefined;
  }
};

export const recordsDir = (stateDir: string): string => path.join(stateDir, 'records');

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Removes temp files left by writers that died mid-write (a SIGKILL between open and rename). A
 * temp file names its writer's pid; one whose writer still runs is left alone. Returns how many.
 */
export const sweepTemps = (dir: string): number => {
  let n = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const f of names) {
    const m = /\.(\d+)\.\d+\.\d+\.tmp$/.exec(f) ?? /\.(\d+)\.\d+\.tmp$/.exec(f);
    if (!m) continue;
    const pid = Number(m[1]);
    try {
      process.kill(pid, 0);
      if (pid !== process.pid) continue; // its writer is alive
    } catch {
      // no such process: the writer is gone
    }
    try {
      unlinkSync(path.join(dir, f));
      n += 1;
    } catch {
      // already gone
    }
  }
  return n;
};
