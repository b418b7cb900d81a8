import { randomBytes } from 'node:crypto';
import { type HostOut, LINK, TASK_NOT_FOUND } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import { splitPrefixed } from '../naming/prefix.js';
import { ERR, RpcFailure, type RpcNotification, type RpcRequest } from '../rpc/jsonrpc.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import type { Surface } from '../guard/scanner.js';
import { modernHandle, park, startModern } from './modern-tasks.js';
import { declaresTasks, LEGACY_ONLY, missingTasksCapability, MODERN_ONLY, modernTask, taskSupportOf, wrongEra } from './tasks-modern.js';
import { prefixResultUris } from './surface.js';
import type { ChildScope, ServerSlot } from './slot.js';
import {
  grantedTtl,
  laneTask,
  MAX_TASKS_PER_HOLDER,
  MAX_TASKS_PER_LANE,
  relatedTaskOf,
  type TaskEntry,
  TaskTable,
  TERMINAL,
  withRelatedTask,
} from './task-table.js';

type Params = Record<string, unknown>;
type Entry = TaskEntry<UpstreamConn>;

/** The 2025-11-25 task methods a lane may send; each is answered here, never by guessing a child. */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list', 'tasks/update']);

export const TASK_STATUS = 'notifications/tasks/status';

/** The one answer for a task that does not exist, is another lane's, or another session's. */
const notFound = (): RpcFailure => new RpcFailure({ code: ERR.invalidParams, message: TASK_NOT_FOUND });

/** A task whose child exited: its last state for tasks/get; for tasks/result and tasks/cancel, why not. */
const goneAnswer = (method: string, e: Entry): Params => {
  if (method === 'tasks/get') return laneTask(e);
  if (method === 'tasks/cancel')
    throw new RpcFailure({ code: ERR.invalidParams, message: `Cannot cancel task: already in terminal status '${e.status}'` });
  throw new RpcFailure({ code: ERR.unavailable, message: `${e.gone ?? `upstream "${e.server}" exited`}; the task's result is gone` });
};

/** Waits (briefly, bounded) for a task's child to be seen exiting. */
const goneSoon = async (e: Entry): Promise<boolean> => {
  for (let i = 0; i < 40 && !e.gone; i += 1) await new Promise((r) => setTimeout(r, 25));
  return e.gone !== undefined;
};

/** How long a tasks/list waits for one child's view of one task before showing the last one known. */
const LIST_POLL_MS = 5_000;

export interface HostTaskDeps {
  byPrefix: (prefix: string) => ServerSlot | undefined;
  /** The servers the lane's loadout names on this host right now. */
  serversOf: (lane: string) => readonly string[];
  notify: HostOut['notify'];
  log: Log;
  /** The secret gate a task's traffic crosses as a call's does (secret-gate.ts). */
  secrets?: TaskSecrets;
}

/** What a task's messages pass on their way (host.ts builds it on the host's SecretGate). */
export interface TaskSecrets {
  /** An upstream's result (or task state) on its way to the lane: as it is, redacted, or a refusal thrown. */
  answer(slot: ServerSlot, lane: string, result: Params): Params | Promise<Params>;
  /** An upstream's error on its way to the lane: resolves when it may pass, else rejects with what replaces it. */
  failure(slot: ServerSlot, lane: string, err: unknown): Promise<void>;
  /** What the lane sends up (its answers to the upstream's requests): resolves when it may pass, else rejects. */
  input(slot: ServerSlot, lane: string, method: string, params: Params): Promise<void>;
}

export interface TaskCaller {
  lane: string;
  holder: string;
  era: Era;
}

/** Whether an upstream runs tools/call as a task (2025-11-25 capability tasks.requests.tools.call). */
const runsToolTasks = (conn: UpstreamConn): boolean => {
  const tasks = conn.init.capabilities.tasks as { requests?: { tools?: { call?: unknown } } } | undefined;
  return tasks?.requests?.tools?.call !== undefined;
};

/**
 * A host's side of 2025-11-25 tasks: a task-augmented tools/call gets a lane-visible id owned by
 * the calling lane and session; tasks/get, tasks/result and tasks/cancel reach exactly the child
 * that holds the task; tasks/list shows the caller's own tasks on this host; a child's status
 * notification reaches only the owning session; a child that exits fails its tasks, naming itself.
 */
export class HostTasks {
  readonly table = new TaskTable<UpstreamConn>(Date.now, () => randomBytes(16).toString('hex'));

  constructor(private readonly d: HostTaskDeps) {}

  /**
   * Whether a tools/call runs as a task, and the params it leaves with. A handshake-era lane asks
   * with `task`. For a 2026-07-28 lane the gateway decides, as the extension has the server do: a
   * tool the upstream runs only as a task becomes one if the lane declared the extension, and is
   * refused with -32021 if it did not; `task` means nothing in that revision and is dropped.
   */
  async asTask(
    slot: ServerSlot,
    conn: UpstreamConn,
    surface: () => Promise<Surface | undefined>,
    who: TaskCaller,
    method: string,
    params: Params,
  ): Promise<{ task: boolean; params: Params }> {
    if (method !== 'tools/call') return { task: false, params };
    if (who.era !== 'modern')
      return params.task === undefined ? { task: false, params } : { task: true, params: this.prepare(slot, conn, who, params) };
    const { task: _dropped, ...rest } = params;
    const support = runsToolTasks(conn) ? taskSupportOf(await surface(), params.name) : undefined;
    // A tool that may run either way runs as a task only for a lane that declared the extension.
    if (support === undefined || (support === 'optional' && !declaresTasks(params))) return { task: false, params: rest };
    if (!declaresTasks(params)) throw missingTasksCapability(`${slot.config.prefix}_${String(params.name)}`);
    return { task: true, params: this.prepare(slot, conn, who, { ...rest, task: {} }) };
  }

  /**
   * Before a task-augmented tools/call leaves: the upstream must run tools as tasks, the session
   * must have room for one more, and the ttl asked for is capped. Returns the params to send.
   */
  prepare(slot: ServerSlot, conn: UpstreamConn, who: TaskCaller, params: Params): Params {
    if (!runsToolTasks(conn))
      throw new RpcFailure({
        code: ERR.methodNotFound,
        message: `upstream "${slot.config.name}" does not run tools/call as a task (it declares no tasks.requests.tools.call); call it without "task"`,
      });
    const open = this.table.openCounts(who.lane, who.holder);
    // A 2026-07-28 request has no session: the lane's such requests are one holder (attack round 12
    // read "this session" where there was none, and "an ended session's tasks count" where they do not).
    const holder = who.era === 'modern' ? "this lane's 2026-07-28 requests already hold" : 'this session already has';
    if (open.holder >= MAX_TASKS_PER_HOLDER)
      throw new RpcFailure({
        code: ERR.invalidRequest,
        message: `lanegate: ${holder} ${MAX_TASKS_PER_HOLDER} tasks on this host; settle some (tasks/result, tasks/cancel) first`,
      });
    if (open.lane >= MAX_TASKS_PER_LANE)
      throw new RpcFailure({
        code: ERR.invalidRequest,
        message: `lanegate: this lane already has ${MAX_TASKS_PER_LANE} tasks on this host, its sessions together (a session's stop counting when it ends: DELETE, idle or evicted); settle some (tasks/result, tasks/cancel) first`,
      });
    const task = (typeof params.task === 'object' && params.task !== null ? params.task : {}) as Params;
    return { ...params, task: { ...task, ttl: grantedTtl(task.ttl) } };
  }

  /** The upstream's CreateTaskResult, recorded and shown to the lane under the lane's own id. */
  adopt(slot: ServerSlot, childKey: string, conn: UpstreamConn, who: TaskCaller, asked: Params, result: Params): Params {
    const task = result.task;
    if (typeof task !== 'object' || task === null || typeof (task as Params).taskId !== 'string') return result;
    const ttlMs = Math.min(grantedTtl((asked.task as Params | undefined)?.ttl), grantedTtl((task as Params).ttl));
    const e = this.table.add({
      prefix: slot.config.prefix,
      server: slot.config.name,
      childKey,
      conn,
      lane: who.lane,
      holder: who.holder,
      task: task as Params,
      ttlMs,
    });
    this.d.log.info({ event: 'task_created', server: e.server, lane: e.lane }, 'task created');
    if (who.era !== 'modern') return { ...result, task: laneTask(e) };
    const secrets = this.d.secrets;
    startModern(
      e,
      slot.config.prefix,
      secrets && { answer: (r) => secrets.answer(slot, who.lane, r), failure: (err) => secrets.failure(slot, who.lane, err) },
    );
    return { resultType: 'task', ...modernTask(e.id, task as Params, e.status) };
  }

  /**
   * A lane's session ended: its tasks can never be reached again (they belong to that session), so
   * each one still running is cancelled upstream (best effort) and all are forgotten, instead of
   * holding the child and the lane's task count until their ttl (attack round 7).
   */
  endHolder(lane: string, holder: string): Params {
    const mine = this.table.ownedBy(lane, holder);
    for (const e of mine)
      if (!e.settled && !e.gone) void e.conn.request('tasks/cancel', { taskId: e.upstreamId }, 5000).catch(() => undefined);
    this.table.forget((e) => e.lane === lane && e.holder === holder);
    if (mine.length > 0)
      this.d.log.info({ event: 'session_tasks_cancelled', lane, count: mine.length }, "an ended session's tasks were cancelled");
    return { cancelled: mine.length };
  }

  /** tasks/get, tasks/result, tasks/cancel, tasks/list of a lane's session. */
  async handle(method: string, who: TaskCaller, params: Params, signal?: AbortSignal): Promise<Params> {
    const modern = who.era === 'modern';
    if (modern ? LEGACY_ONLY.has(method) : method === MODERN_ONLY) throw wrongEra(method, modern);
    if (method === 'tasks/list') return this.list(who);
    const e = this.owned(params.taskId, who);
    const slot = this.d.byPrefix(splitPrefixed(e.id)?.prefix ?? '');
    const timeoutMs = slot?.config.callTimeoutMs ?? 60_000;
    const secrets = slot ? this.d.secrets : undefined;
    // What the upstream says reaches the lane only through the secret gate (the lane's own answers go up through it too).
    const seen = async (shown: Params): Promise<Params> => (slot && secrets ? secrets.answer(slot, e.lane, shown) : shown);
    if (e.modern) {
      if (method === 'tasks/update' && slot && secrets) await secrets.input(slot, e.lane, method, params);
      const shown = await modernHandle(e, method, params, timeoutMs, signal);
      // The final result was checked once, when it came (startModern); the rest (status, input requests) here.
      const { result, ...rest } = shown;
      const checked = await seen(rest);
      return result === undefined ? checked : { ...checked, result };
    }
    if (e.gone) return goneAnswer(method, e);
    let result: Params;
    try {
      result = await e.conn.request(method, { taskId: e.upstreamId }, timeoutMs, signal);
    } catch (err) {
      // The child's pipes close a moment before its exit is seen: a task it took along reads as gone.
      if (err instanceof RpcFailure && err.rpc.code === ERR.unavailable && (await goneSoon(e))) return goneAnswer(method, e);
      if (err instanceof RpcFailure && (err.rpc.code === ERR.unavailable || err.rpc.code === ERR.timeout))
        throw new RpcFailure({ code: err.rpc.code, message: `upstream "${e.server}": ${err.rpc.message}` });
      if (slot && secrets) await secrets.failure(slot, e.lane, err);
      throw err;
    }
    if (method === 'tasks/result') {
      e.settled = true;
      const shown = withRelatedTask(result, e.id) ?? result;
      if (!slot) return shown;
      return prefixResultUris('tools/call', slot.config.prefix, await seen(shown));
    }
    this.table.observe(e, result);
    if (method === 'tasks/cancel') e.settled = true;
    return seen(laneTask(e, result));
  }

  /** The caller's task, or the one not-found answer (unknown, expired, another lane's or session's). */
  private owned(taskId: unknown, who: TaskCaller): Entry {
    const e = typeof taskId === 'string' ? this.table.owned(taskId, who.lane, who.holder) : undefined;
    // A server that left the lane's loadout took its tasks with it.
    if (!e || !this.d.serversOf(who.lane).includes(e.server)) throw notFound();
    return e;
  }

  /** The caller's tasks on this host, each as its child says now (or as last known if it cannot). */
  private async list(who: TaskCaller): Promise<Params> {
    const servers = this.d.serversOf(who.lane);
    const mine = this.table.ownedBy(who.lane, who.holder).filter((e) => servers.includes(e.server));
    const tasks = await Promise.all(
      mine.map(async (e) => {
        const slot = this.d.byPrefix(splitPrefixed(e.id)?.prefix ?? '');
        // Each task's state is the upstream's text: through the gate, or left out of the list if refused.
        const seen = async (t: Params): Promise<Params | undefined> =>
          slot && this.d.secrets ? Promise.resolve(this.d.secrets.answer(slot, e.lane, t)).catch(() => undefined) : t;
        if (e.gone || TERMINAL.has(e.status)) return seen(laneTask(e));
        try {
          const now = await e.conn.request('tasks/get', { taskId: e.upstreamId }, LIST_POLL_MS);
          this.table.observe(e, now);
          return seen(laneTask(e, now));
        } catch {
          return seen(laneTask(e));
        }
      }),
    );
    return { tasks: tasks.filter((t) => t !== undefined) };
  }

  /** A child's notification: a task status goes to the owning session only. Returns whether it was one. */
  notification(server: string, scope: ChildScope, n: RpcNotification): boolean {
    if (n.method !== TASK_STATUS) return false;
    const e = this.table.byUpstream(server, scope.key, n.params?.taskId);
    // A status for no task of ours (or from a child several lanes use) reaches no one.
    if (!e || scope.lanes === 'all') return true;
    this.table.observe(e, n.params ?? {});
    // A 2026-07-28 lane has no session to tell; it polls tasks/get.
    if (!e.modern) this.tell(e, laneTask(e, n.params ?? {}));
    return true;
  }

  /** A child's request about a 2026-07-28 lane's task: parked as that task's input request (else undefined). */
  parked(server: string, scope: ChildScope, r: RpcRequest): Promise<Params> | undefined {
    const e = this.table.byUpstream(server, scope.key, relatedTaskOf(r.params));
    return e?.modern ? park(e, r) : undefined;
  }

  /**
   * A child's request that names one of its tasks (elicitation during tasks/result): the lane's id
   * instead, and the session that owns the task (the only one that may answer it).
   */
  inbound(server: string, scope: ChildScope, r: RpcRequest): { request: RpcRequest; holder?: string } {
    const upstreamId = relatedTaskOf(r.params);
    const e = upstreamId === undefined ? undefined : this.table.byUpstream(server, scope.key, upstreamId);
    if (!e) return { request: r };
    return { request: { ...r, params: withRelatedTask(r.params, e.id) ?? {} }, ...(e.holder ? { holder: e.holder } : {}) };
  }

  /** A child exited: its tasks fail (naming the server) and their sessions are told. */
  childGone(server: string, conn: UpstreamConn, detail: string): void {
    const why = `upstream "${server}" ${detail} with the task outstanding`;
    for (const e of this.table.childGone(conn, why)) {
      this.d.log.info({ event: 'task_failed', server, lane: e.lane }, 'task failed: its child exited');
      for (const p of [...(e.modern?.inputs.values() ?? [])]) p.fail(new RpcFailure({ code: ERR.unavailable, message: why }));
      if (!e.modern) this.tell(e, laneTask(e));
    }
  }

  holds(server: string, childKey: string): boolean {
    return this.table.holds(server, childKey);
  }

  /** A task's status to its session, through the secret gate (its statusMessage is the upstream's text): withheld if refused. */
  private tell(e: Entry, task: Params): void {
    const slot = this.d.byPrefix(splitPrefixed(e.id)?.prefix ?? '');
    const send = (params: Params): void =>
      this.d.notify(LINK.laneEvent, { lane: e.lane, holders: [e.holder], method: TASK_STATUS, params });
    if (!slot || !this.d.secrets) {
      send(task);
      return;
    }
    Promise.resolve()
      .then(() => this.d.secrets?.answer(slot, e.lane, task) ?? task)
      .then(send, () => this.d.log.warn({ event: 'task_status_withheld', server: e.server, lane: e.lane }, 'a task status was withheld'));
  }
}
