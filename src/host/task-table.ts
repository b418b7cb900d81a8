import { RELATED_TASK } from '../link/protocol.js';
/**
 * Tasks (revision 2025-11-25) a host's children hold for lanes. The id a lane sees is minted here
 * (`prefix_task-<random>`, so the front routes it by prefix as it routes names) and maps to the
 * upstream's own id on the one child that holds the task. A task belongs to the lane AND holder
 * (session) that created it: every lookup checks both, and a task of another lane or session reads
 * exactly like one that does not exist. No IO: the caller passes the clock and the id minter.
 */

/** Statuses after which a task never changes (2025-11-25 tasks: completed, failed, cancelled). */
export const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** The longest a lane's task is kept (and keeps its child alive), whatever ttl it asked for. */
export const MAX_TASK_TTL_MS = 60 * 60 * 1000;
/** Tasks one holder (a session) may have on a host at once; the next task-augmented call is refused. */
export const MAX_TASKS_PER_HOLDER = 64;
/**
 * Tasks one lane may hold on one host, all its sessions together: a session that ends leaves its
 * tasks until their ttl, so a per-session bound alone let a lane open, fill and drop sessions
 * without end (attack round 7: 512 tasks in 20 s, the child at 2 GB).
 */
export const MAX_TASKS_PER_LANE = 128;

export interface TaskEntry<C> {
  /** The id the lane sees. */
  id: string;
  server: string;
  /** The child's key within its server when the task was made (lane or shared, and era). */
  childKey: string;
  /** The child's link: a task lives exactly as long as the child that holds it. */
  conn: C;
  upstreamId: string;
  lane: string;
  holder: string;
  status: string;
  createdAt: number;
  expiresAt: number;
  /** The last task state the upstream reported (with its own id). */
  last: Record<string, unknown>;
  /** Why the task can no longer be reached (its child exited): names the server. */
  gone?: string;
  /** The lane has its result (or cancelled it): it no longer keeps the child alive. */
  settled: boolean;
  /** For a 2026-07-28 lane: how the task ended upstream, and the child's requests it waits on. */
  modern?: ModernState;
}

/** A child's request parked until a 2026-07-28 lane answers it with tasks/update. */
export interface Parked {
  method: string;
  params: Record<string, unknown>;
  answer: (r: Record<string, unknown>) => void;
  fail: (e: Error) => void;
}

export interface ModernState {
  final?: { result: Record<string, unknown> } | { error: { code: number; message: string } };
  inputs: Map<string, Parked>;
  seq: number;
}

/** A lane-visible id: routes by the server's prefix, carries nothing else. */
export const publicTaskId = (prefix: string, random: string): string => `${prefix}_task-${random}`;

/** The task's ttl as the gateway grants it: the lane's, capped; absent or unlimited means the cap. */
export const grantedTtl = (ttl: unknown): number =>
  typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? Math.min(ttl, MAX_TASK_TTL_MS) : MAX_TASK_TTL_MS;

export class TaskTable<C> {
  private readonly byId = new Map<string, TaskEntry<C>>();

  constructor(
    private readonly now: () => number,
    private readonly mint: () => string,
  ) {}

  /** Drops tasks past their expiry (the child let them go too, or will). */
  prune(): void {
    const t = this.now();
    for (const [id, e] of this.byId) if (e.expiresAt <= t) this.byId.delete(id);
  }

  /**
   * The tasks a lane holds open right now, in all and of this holder: a settled task (its result
   * fetched, or cancelled) or one whose child is gone no longer counts, even while it is kept to
   * answer a late tasks/get. One pass.
   */
  openCounts(lane: string, holder: string): { lane: number; holder: number } {
    this.prune();
    const n = { lane: 0, holder: 0 };
    for (const e of this.byId.values()) {
      if (e.lane !== lane || e.settled || e.gone) continue;
      n.lane += 1;
      if (e.holder === holder) n.holder += 1;
    }
    return n;
  }

  /** Records a task an upstream created for a lane's call; returns its entry (with the lane's id). */
  add(a: {
    prefix: string;
    server: string;
    childKey: string;
    conn: C;
    lane: string;
    holder: string;
    task: Record<string, unknown>;
    ttlMs: number;
  }): TaskEntry<C> {
    let id = publicTaskId(a.prefix, this.mint());
    for (let i = 0; i < 4 && this.byId.has(id); i += 1) id = publicTaskId(a.prefix, this.mint());
    const t = this.now();
    const e: TaskEntry<C> = {
      id,
      server: a.server,
      childKey: a.childKey,
      conn: a.conn,
      upstreamId: String(a.task.taskId),
      lane: a.lane,
      holder: a.holder,
      status: typeof a.task.status === 'string' ? a.task.status : 'working',
      createdAt: t,
      expiresAt: t + a.ttlMs,
      last: a.task,
      settled: false,
    };
    this.byId.set(id, e);
    return e;
  }

  /** The task if it exists AND belongs to this lane and holder; undefined otherwise, indistinguishably. */
  owned(id: string, lane: string, holder: string): TaskEntry<C> | undefined {
    const e = this.byId.get(id);
    if (!e || e.lane !== lane || e.holder !== holder) return undefined;
    if (e.expiresAt <= this.now()) {
      this.byId.delete(id);
      return undefined;
    }
    return e;
  }

  /** Every live task of this holder of the lane, oldest first. */
  ownedBy(lane: string, holder: string): TaskEntry<C>[] {
    this.prune();
    return [...this.byId.values()].filter((e) => e.lane === lane && e.holder === holder).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** The task a child's frame names by its upstream id (only on the child that holds it, and not gone). */
  byUpstream(server: string, childKey: string, upstreamId: unknown): TaskEntry<C> | undefined {
    if (typeof upstreamId !== 'string') return undefined;
    for (const e of this.byId.values())
      if (e.server === server && e.childKey === childKey && e.upstreamId === upstreamId && !e.gone) return e;
    return undefined;
  }

  /** What the upstream last said of the task: its status is kept (a terminal one never changes). */
  observe(e: TaskEntry<C>, task: Record<string, unknown>): void {
    if (TERMINAL.has(e.status) || typeof task.status !== 'string') return;
    e.status = task.status;
    e.last = task;
  }

  /**
   * A child exited: its tasks cannot be reached any more. Those still running fail, with a message
   * naming the server; all are marked gone. Returns the tasks that changed status (to tell their lanes).
   */
  childGone(conn: C, why: string): TaskEntry<C>[] {
    const failed: TaskEntry<C>[] = [];
    for (const e of this.byId.values()) {
      if (e.conn !== conn || e.gone) continue;
      e.gone = why;
      e.settled = true;
      if (!TERMINAL.has(e.status)) {
        e.status = 'failed';
        e.last = { ...e.last, status: 'failed', statusMessage: why, lastUpdatedAt: new Date(this.now()).toISOString() };
        failed.push(e);
      }
    }
    return failed;
  }

  /** Whether a child must be kept running: it holds a task a lane has not settled yet. */
  holds(server: string, childKey: string): boolean {
    this.prune();
    for (const e of this.byId.values()) if (e.server === server && e.childKey === childKey && !e.settled && !e.gone) return true;
    return false;
  }

  /** A lane's removal from a server: its tasks there are forgotten (their child stops). */
  forget(pred: (e: TaskEntry<C>) => boolean): void {
    for (const [id, e] of this.byId) if (pred(e)) this.byId.delete(id);
  }
}

/** The task as the lane sees it: the upstream's state under the lane's id. Pure. */
export const laneTask = <C>(e: TaskEntry<C>, task: Record<string, unknown> = e.last): Record<string, unknown> => {
  const { _meta: _m, ...rest } = task;
  return { ...rest, taskId: e.id, status: TERMINAL.has(e.status) ? e.status : (rest.status ?? e.status) };
};

/** `_meta["io.modelcontextprotocol/related-task"]`, as 2025-11-25 names it. */
export { RELATED_TASK } from '../link/protocol.js';

/** A message's `_meta` with its related-task id replaced (or the message as it was, if it names none). Pure. */
export const withRelatedTask = (params: Record<string, unknown> | undefined, id: string): Record<string, unknown> | undefined => {
  const meta = params?._meta;
  if (!params || typeof meta !== 'object' || meta === null || !(RELATED_TASK in meta)) return params;
  return { ...params, _meta: { ...(meta as Record<string, unknown>), [RELATED_TASK]: { taskId: id } } };
};

/** The upstream task id a message's related-task names, if any. Pure. */
export const relatedTaskOf = (params: Record<string, unknown> | undefined): unknown => {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const rel = meta?.[RELATED_TASK] as Record<string, unknown> | undefined;
  return rel?.taskId;
};
