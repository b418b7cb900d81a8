import { createHash } from 'node:crypto';
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ReloadResult } from './reload.js';

export interface WatchOptions {
  /** Quiet time after the last change before the file is read (a save or a swap is several events). */
  debounceMs?: number;
  /** A read of the file this often as well: a watcher can miss events (network file systems, a replaced directory). */
  pollMs?: number;
}

export interface PolicyWatch {
  close: () => void;
}

/** The policy's content as a hash, following symlinks; undefined while it cannot be read (mid-swap). */
const contentHash = (file: string): string | undefined => {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
};

/**
 * `serve --watch`: reloads the running gateway when its policy file's CONTENT changes. It
 * watches the file's directory, not the file's inode: an editor that saves by rename and a
 * Kubernetes ConfigMap volume (whose `..data` symlink is swapped atomically to a new directory)
 * both replace the inode. Changes are debounced and compared by content, so a touch, a swap to
 * the same text or a burst of events is one reload at most. A policy that fails validation is
 * refused by the reload path (its problems logged as reload_refused) and the running policy stays;
 * the same broken text is not retried until it changes again.
 */
export const watchPolicy = (file: string, reload: () => Promise<ReloadResult>, log: Logger, o: WatchOptions = {}): PolicyWatch => {
  const debounceMs = o.debounceMs ?? 300;
  const dir = path.dirname(path.resolve(file));
  let seen = contentHash(file);
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let closed = false;
  let watcher: FSWatcher | undefined;

  const check = async (): Promise<void> => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    const now = contentHash(file);
    // Unreadable for a moment (a swap in progress, a file being replaced): the next event or poll looks again.
    if (now === undefined || now === seen) return;
    seen = now;
    running = true;
    try {
      log.info({ event: 'policy_changed', file }, 'policy file changed; reloading');
      const r = await reload();
      if (!r.ok) log.warn({ event: 'policy_watch_refused', file }, 'the changed policy was refused; the running policy keeps serving');
    } catch (e) {
      log.error(
        { event: 'policy_watch_failed', detail: e instanceof Error ? e.message : String(e) },
        'reload after a policy change failed',
      );
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      await check();
    }
  };
  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void check(), debounceMs);
    timer.unref();
  };
  const arm = (): void => {
    if (watcher || closed) return;
    try {
      watcher = watch(dir, { persistent: false }, soon);
      watcher.on('error', () => {
        // The directory went away (or the watch failed): polling carries on and re-arms it.
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined;
    }
  };
  arm();
  const poll = setInterval(() => {
    arm();
    void check();
  }, o.pollMs ?? 5000);
  poll.unref();
  log.info({ event: 'policy_watch', file, dir }, 'watching the policy file for changes');
  return {
    close: () => {
      closed = true;
      clearTimeout(timer);
      clearInterval(poll);
      watcher?.close();
    },
  };
};
