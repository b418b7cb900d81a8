import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const environOf = (pid: number): string => readFileSync(`/proc/${pid}/environ`, 'utf8');

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2]?.startsWith('Z');
  } catch {
    return false;
  }
};

/**
 * SIGKILLs processes a test started and may have left running (an `after()` hook's cleanup: a
 * regression that leaves one behind then fails its assertion, instead of holding the run's pipes open).
 */
export const killLeftovers = (pids: Iterable<number>): void => {
  for (const pid of pids) {
    if (!alive(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone between the check and the kill.
    }
  }
};

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until `fn` is truthy or the deadline passes; returns the last value. */
export const waitFor = async <T>(fn: () => T | Promise<T>, ms = 10_000, every = 100): Promise<T> => {
  const end = Date.now() + ms;
  let v = await fn();
  while (!v && Date.now() < end) {
    await sleep(every);
    v = await fn();
  }
  return v;
};

/** Asks a node process started with --heapsnapshot-signal=SIGUSR2 for a snapshot; returns its text. */
export const heapSnapshot = async (pid: number, dir: string): Promise<string> => {
  const mine = (): string[] =>
    existsSync(dir) ? readdirSync(dir).filter((f) => f.includes(`.${pid}.`) && f.endsWith('.heapsnapshot')) : [];
  const before = new Set(mine());
  process.kill(pid, 'SIGUSR2');
  const file = await waitFor(() => mine().find((f) => !before.has(f)), 20_000);
  if (!file) throw new Error(`no heap snapshot from ${pid}`);
  const full = path.join(dir, file);
  let size = -1;
  // The file is complete when its size stops changing and it parses as JSON.
  for (let i = 0; i < 200; i += 1) {
    await sleep(150);
    const s = statSync(full).size;
    if (s === size && s > 0) {
      const text = readFileSync(full, 'utf8');
      try {
        JSON.parse(text);
        return text;
      } catch {
        // still being written
      }
    }
    size = s;
  }
  throw new Error('heap snapshot never completed');
};

/** A process's CPU time so far, user and system, in seconds (Linux: /proc/PID/stat, 100 ticks a second). */
export const cpuSecondsOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces, so it is skipped by its closing paren).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
