import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * Process groups of stdio upstreams (POSIX): each child leads one, so a signal reaches what it
 * started, and what is left of a group after its leader is gone is swept. A group is named by its
 * leader's pid and, where /proc exists, the leader's start time: a pid the kernel has since given to
 * another process is told apart, and never signalled as the old group.
 */

/** How long what is left of a group after its leader's exit has to end on SIGTERM before its SIGKILL. */
export const GROUP_SWEEP_MS = 1000;
const SWEEP_POLL_MS = 50;

export interface Group {
  id: number;
  /** The leader's start time (/proc stat field 22), where /proc exists. */
  start?: string;
}

const PROCFS = existsSync('/proc/self/stat');

/** ppid, pgid and start time of a process, from /proc; undefined if there is no such process (or no /proc). */
const statOf = (pid: number): { ppid: number; pgid: number; start: string } | undefined => {
  if (!PROCFS) return undefined;
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: field 3 (state) on; ppid is 4, pgrp 5, starttime 22.
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), pgid: Number(f[2]), start: f[19] ?? '' };
  } catch {
    return undefined;
  }
};

/** The group a just-started leader leads (its start time read now, while its pid is certainly its own). */
export const groupOf = (pid: number): Group => ({ id: pid, start: statOf(pid)?.start });

/**
 * Whether group `g.id` can only be the group `g` was: its leader still there (alive or a zombie),
 * or no process at all has the leader's pid (then only the old members can carry that group id:
 * Linux allocates no pid still in use as a group's id). A process with that pid and another start
 * time means the pid was reused. Without /proc any process with that pid counts as reused, the
 * leader too: a sweep only starts once the leader is reaped, and a signal to a live child's group
 * does not come here (spawn.ts).
 */
const stillOurs = (g: Group): boolean => {
  if (PROCFS) {
    const st = statOf(g.id);
    return st === undefined || (g.start !== undefined && st.start === g.start);
  }
  try {
    process.kill(g.id, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

/** Sends `sig` to every member of the group; false if it is not ours any more or has no member left. */
export const signalGroup = (g: Group, sig: NodeJS.Signals | 0): boolean => {
  if (!stillOurs(g)) return false;
  try {
    process.kill(-g.id, sig);
    return true;
  } catch (e) {
    // EPERM: members remain that this process may not signal (they changed user); they remain.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Sweeps under way, by group id and leader start time. */
const pending = new Map<string, { g: Group; done: Promise<void> }>();
const keyOf = (g: Group): string => `${g.id}:${g.start ?? ''}`;

/**
 * What is left of a group whose leader is gone (a wrapper's server, a server's helper) gets
 * SIGTERM, then SIGKILL GROUP_SWEEP_MS later if any of it still runs. Settles when the group is
 * empty or killed; an empty group (the usual case) settles at once.
 */
export const sweepGroup = (g: Group): Promise<void> => {
  const key = keyOf(g);
  const existing = pending.get(key);
  if (existing) return existing.done;
  if (!signalGroup(g, 'SIGTERM')) return Promise.resolve();
  const end = performance.now() + GROUP_SWEEP_MS;
  const done = new Promise<void>((resolve) => {
    const tick = (): void => {
      const left = signalGroup(g, 0);
      if (left && performance.now() < end) {
        setTimeout(tick, SWEEP_POLL_MS).unref();
        return;
      }
      if (left) signalGroup(g, 'SIGKILL');
      pending.delete(key);
      resolve();
    };
    setTimeout(tick, SWEEP_POLL_MS).unref();
  });
  pending.set(key, { g, done });
  return done;
};

/**
 * Resolves when every sweep under way has ended (a process about to exit waits for them: at most
 * GROUP_SWEEP_MS). It keeps the process alive meanwhile: the sweeps' own timers do not (a host
 * whose link and children are gone would otherwise end at once, and its exit hook SIGKILL what is
 * left without the SIGTERM's second).
 */
export const settleSweeps = async (): Promise<void> => {
  if (pending.size === 0) return;
  const hold = setInterval(() => undefined, GROUP_SWEEP_MS);
  try {
    await Promise.all([...pending.values()].map((p) => p.done));
  } finally {
    clearInterval(hold);
  }
};

/** At exit, no timer will run: every group still being swept gets its SIGKILL now. */
export const killPendingSweeps = (): void => {
  for (const { g } of pending.values()) signalGroup(g, 'SIGKILL');
  pending.clear();
};

/**
 * The groups led by the children of `pid` (Linux, from /proc; elsewhere none): read before a host is
 * SIGKILLed, whose children then die with it (PR_SET_PDEATHSIG) but whose children's own children
 * would be left running, out of any living process's reach, but for a sweep of these groups.
 */
export const groupsLedByChildrenOf = (pid: number): Group[] => {
  if (!PROCFS) return [];
  const out: Group[] = [];
  for (const name of readdirSync('/proc')) {
    const n = Number(name);
    if (!Number.isInteger(n) || n <= 0) continue;
    const st = statOf(n);
    if (st && st.ppid === pid && st.pgid === n) out.push({ id: n, start: st.start });
  }
  return out;
};
