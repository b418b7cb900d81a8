import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface Exit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** A process (or an in-process stand-in) at the other end of a link: what supervision needs of it. */
export interface Linked {
  stdin: Writable;
  stdout: Readable;
  pid: number | undefined;
  /** Settles once, when it has ended. */
  exited: Promise<Exit>;
  kill: (signal: NodeJS.Signals) => void;
  ended: () => boolean;
}

export interface Piped extends Linked {
  child: ChildProcess;
  stdin: Writable;
  stdout: Readable;
  /** Null when stderr is inherited. */
  stderr: Readable | null;
  pid: number | undefined;
  /** Settles once, when the process has exited (or could not start: exitCode null, signal null). */
  exited: Promise<Exit>;
}

/** How long what is left of a group after its leader's exit has to end on SIGTERM before its SIGKILL. */
export const GROUP_SWEEP_MS = 1000;

/** A signal to a process's group (its own, when started with `group`), else to the process. */
const signal = (child: ChildProcess, group: boolean, sig: NodeJS.Signals): void => {
  if (group && child.pid !== undefined) {
    try {
      process.kill(-child.pid, sig);
      return;
    } catch {
      // No group (gone, or the leader never started): the process alone, below.
    }
  }
  child.kill(sig);
};

/** The processes this one started and that still run, each with whether it leads a group of its own. */
const live = new Map<ChildProcess, boolean>();
let hooked = false;
/** Whatever this process started dies with it, however it exits (a group, with everything in it). */
const hookExit = (): void => {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const [c, group] of live) signal(c, group, 'SIGKILL');
  });
};

/**
 * After a group's leader has exited, whatever it started and left running (a wrapper's server, a
 * server's helper) is stopped too: SIGTERM, then SIGKILL. ESRCH (nothing left) is the usual answer.
 */
const sweepGroup = (pid: number): void => {
  const kill = (sig: NodeJS.Signals): boolean => {
    try {
      process.kill(-pid, sig);
      return true;
    } catch {
      return false;
    }
  };
  // A group emptied by the SIGTERM frees its id; should a process started here since have got that
  // pid (a wrap-around), the SIGKILL is not sent: never a signal to a group that is not the old one.
  const reused = (): boolean => [...live.keys()].some((c) => c.pid === pid);
  if (kill('SIGTERM')) setTimeout(() => reused() || kill('SIGKILL'), GROUP_SWEEP_MS).unref();
};

/**
 * Starts a program with piped stdin and stdout: argv array, no shell, exactly the environment
 * given (nothing inherited), hidden window on Windows. The IO shell's one way to start a process,
 * on node's own child_process (a host loads no process library for it).
 *
 * `group` (POSIX): the program leads a process group of its own, every signal goes to the whole
 * group, and what is left of it once the leader has exited is stopped (sweepGroup): npx, uvx, a
 * shell script or a server's helpers are never left running, orphaned, after the server stops.
 */
export const spawnPiped = (
  file: string,
  argv: string[],
  opts: { cwd?: string; env: Record<string, string>; stderr: 'pipe' | 'inherit'; group?: boolean },
): Piped => {
  hookExit();
  const group = opts.group === true && process.platform !== 'win32';
  const child = spawn(file, argv, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['pipe', 'pipe', opts.stderr],
    windowsHide: true,
    detached: group,
  });
  live.set(child, group);
  const exited = new Promise<Exit>((resolve) => {
    const done = (e: Exit): void => {
      live.delete(child);
      if (group && child.pid !== undefined) sweepGroup(child.pid);
      resolve(e);
    };
    child.once('error', () => done({ exitCode: child.exitCode, signal: child.signalCode }));
    child.once('exit', (exitCode, signal) => done({ exitCode, signal }));
  });
  const stdin = child.stdin as Writable;
  stdin.on('error', () => undefined);
  return {
    child,
    stdin,
    stdout: child.stdout as Readable,
    stderr: child.stderr,
    pid: child.pid,
    exited,
    kill: (sig) => signal(child, group, sig),
    ended: () => child.exitCode !== null || child.signalCode !== null,
  };
};

/**
 * The one stop routine for children and hosts: close its stdin (the polite MCP way to end a stdio
 * peer), SIGTERM after `graceMs`, SIGKILL after `killMs`, and wait for the exit.
 */
export const stopPiped = async (p: Linked, graceMs: number, killMs: number): Promise<Exit> => {
  if (p.ended()) return p.exited;
  p.stdin.end();
  const t1 = setTimeout(() => p.kill('SIGTERM'), graceMs);
  const t2 = setTimeout(() => p.kill('SIGKILL'), killMs);
  const e = await p.exited;
  clearTimeout(t1);
  clearTimeout(t2);
  return e;
};
