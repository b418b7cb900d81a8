import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Write-temp, fsync, rename: a reader sees the old file or the new one, never half of one. */
export const writeAtomic = (file: string, content: string, mode = 0o600): void => {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  try {
    const dfd = openSync(path.dirname(file), 'r');
    fsyncSync(dfd);
    closeSync(dfd);
  } catch {
    // directory fsync is best effort (not supported everywhere)
  }
};

/** Reads JSON; a missing or corrupt file reads as undefined (callers treat it as "nothing recorded"). */
export const readJson = (file: string): unknown => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
};

export const recordsDir = (stateDir: string): string => path.join(stateDir, 'records');
