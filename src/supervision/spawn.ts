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

const live = new Set<ChildProcess>();
let hooked = false;
/** Whatever this process started dies with it, however it exits. */
const hookExit = (): void => {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
};

/**
 * Starts a program with piped stdin and stdout: argv array, no shell, exactly the environment
 * given (nothing inherited), hidden window on Windows. The IO shell's one way to start a process,
 * on node's own child_process (a host loads no process library for it).
 */
export const spawnPiped = (
  file: string,
  argv: string[],
  opts: { cwd?: string; env: Record<string, string>; stderr: 'pipe' | 'inherit' },
): Piped => {
  hookExit();
  const child = spawn(file, argv, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', opts.stderr], windowsHide: true });
  live.add(child);
  const exited = new Promise<Exit>((resolve) => {
    const done = (e: Exit): void => {
      live.delete(child);
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
    kill: (sig) => child.kill(sig),
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
