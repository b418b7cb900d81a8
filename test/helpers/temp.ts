import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];
let armed = false;

/**
 * A fresh temp dir (`lanegate-<label>-XXXXXX`), removed when this test process exits: a test may
 * read what a stopped gateway left there until its file's last test has run. (A full run used to
 * leave ~150 of them behind.)
 */
export const tempDir = (label: string): string => {
  const dir = mkdtempSync(path.join(tmpdir(), `lanegate-${label}-`));
  made.push(dir);
  if (!armed) {
    armed = true;
    process.on('exit', () => {
      for (const d of made) {
        try {
          rmSync(d, { recursive: true, force: true, maxRetries: 2 });
        } catch {
          // A process this file started may still be writing there: left, as before.
        }
      }
    });
  }
  return dir;
};
