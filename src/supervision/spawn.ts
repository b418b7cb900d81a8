import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { type Group, groupOf, groupsLedByChildrenOf, killPendingSweeps, signalGroup, sweepGroup } from './process-groups.js';

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

/** How the processes this one started are stopped: a group (a stdio upstream), or a host whose children lead groups. */
interface Kin {
  /** The group this child leads (started with `group`). */
  group?: Group;
  /** A host: the groups its children lead are swept when it is SIGKILLed (they would outlive it). */
  sweepChildGroups: boolean;
}

/**
 * A signal to a child: to its whole group when it leads one (while it is not reaped, its pid names
 * its group and nothing else). A host's SIGKILL also sweeps the groups its children lead, read
 * first: those children die with it (PR_SET_PDEATHSIG), what they started would not. At exit
 * (`now`) those groups are killed at once, no timer being left to run.
 */
const signal = (child: ChildProcess, kin: Kin, sig: NodeJS.Signals, now = false): void => {
  if (kin.group && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-kin.group.id, sig);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') return;
    }
  }
  // Only while the host is not reaped: until then its pid is its own, never another process's.
  const running = child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  const orphans = sig === 'SIGKILL' && kin.sweepChildGroups && running ? groupsLedByChildrenOf(child.pid as number) : [];
  child.kill(sig);
  for (const g of orphans) {
    if (now) signalGroup(g, 'SIGKILL');
    else void sweepGroup(g);
  }
};

/** The processes this one started and that still run. */
const live = new Map<ChildProcess, Kin>();
let hooked = false;
/** Whatever this process started dies with it, however it exits (a group, with everything in it). */
const hookExit = (): void => {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const [c, kin] of live) signal(c, kin, 'SIGKILL', true);
    killPendingSweeps();
  });
};

/**
 * Starts a program with piped stdin and stdout: argv array, no shell, exactly the environment
 * given (nothing inherited), hidden window on Windows. The IO shell's one way to start a process,
 * on node's own child_process (a host loads no process library for it).
 *
 * `group` (POSIX): the program leads a process group (and session) of its own, every signal goes to
 * the whole group, and what is left of it once the leader has exited is swept (process-groups.ts):
 * what npx, uvx, a shell script or a server itself started stops with the server.
 * `sweepChildGroups` (a host): its SIGKILL also sweeps the groups its children lead.
 */
export const spawnPiped = (
  file: string,
  argv: string[],
  opts: { cwd?: string; env: Record<string, string>; stderr: 'pipe' | 'inherit'; group?: boolean; sweepChildGroups?: boolean },
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
  const kin: Kin = {
    group: group && child.pid !== undefined ? groupOf(child.pid) : undefined,
    sweepChildGroups: opts.sweepChildGroups === true,
  };
  live.set(child, kin);
  const exited = new Promise<Exit>((resolve) => {
    let ended = false;
    const done = (e: Exit): void => {
      if (ended) return;
      ended = true;
      live.delete(child);
      if (kin.group) void sweepGroup(kin.group);
      resolve(e);
    };
    // 'error' also comes of a signal that could not be sent: only a start that failed (no pid) ends it.
    child.on('error', () => {
      if (child.pid === undefined) done({ exitCode: child.exitCode, signal: child.signalCode });
    });
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
    kill: (sig) => signal(child, kin, sig),
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
