import { CALLER_META } from '../link/config.js';
import { ERR, RpcFailure, type RpcError } from '../rpc/jsonrpc.js';
import type { Surface } from '../guard/scanner.js';
import { RELATED_TASK } from './task-table.js';

type Params = Record<string, unknown>;

/**
 * Tasks for a 2026-07-28 lane. That revision moved tasks into the extension
 * `io.modelcontextprotocol/tasks` (SEP-2663): the server decides to answer a tools/call with
 * `resultType: "task"`; the client polls `tasks/get`, whose answer carries the final `result` or
 * `error`, or `inputRequests` while the task waits; it answers those with `tasks/update`; there is
 * no `tasks/result` and no `tasks/list`, and a lane that did not declare the extension must be told
 * so (-32021) rather than given a task. The upstreams behind lanegate speak 2025-11-25 tasks; these
 * pure pieces translate between the two.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const MISSING_CLIENT_CAPABILITY = ERR.missingCapability;

/** Methods of the extension; a handshake-era lane has tasks/result and tasks/list instead of tasks/update. */
export const MODERN_ONLY = 'tasks/update';
export const LEGACY_ONLY: ReadonlySet<string> = new Set(['tasks/result', 'tasks/list']);

/** Whether the lane's request declared the tasks extension (its capabilities ride in the caller block). */
export const declaresTasks = (params: Params): boolean => {
  const caller = (params._meta as Params | undefined)?.[CALLER_META] as { capabilities?: { extensions?: Params } } | undefined;
  return caller?.capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
};

/** How the upstream lists a tool's task support (execution.taskSupport): required, optional, or neither. */
export const taskSupportOf = (surface: Surface | undefined, name: unknown): 'required' | 'optional' | undefined => {
  const t = (surface?.tools ?? []).find((x) => x.name === name);
  const v = (t?.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return v === 'required' || v === 'optional' ? v : undefined;
};

/** The error a 2026-07-28 lane gets for a task-only tool when it did not declare the extension. */
export const missingTasksCapability = (tool: string): RpcFailure =>
  new RpcFailure({
    code: MISSING_CLIENT_CAPABILITY,
    message: `Missing required client capability: ${tool} runs only as a task; declare the ${TASKS_EXTENSION} extension in clientCapabilities`,
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  });

/** A 2025-11-25 Task as the extension's Task (ttl → ttlMs, pollInterval → pollIntervalMs), under the lane's id. Pure. */
export const modernTask = (id: string, t: Params, status: string): Params => ({
  taskId: id,
  status,
  ...(typeof t.statusMessage === 'string' ? { statusMessage: t.statusMessage } : {}),
  createdAt: t.createdAt,
  lastUpdatedAt: t.lastUpdatedAt ?? t.createdAt,
  ttlMs: typeof t.ttl === 'number' ? t.ttl : null,
  ...(typeof t.pollInterval === 'number' ? { pollIntervalMs: t.pollInterval } : {}),
});

/** A result inlined in tasks/get: without the 2025-11-25 related-task key (the task id is at its root). Pure. */
export const inlinedResult = (r: Params): Params => {
  const meta = r._meta as Params | undefined;
  if (!meta || !(RELATED_TASK in meta)) return r;
  const { [RELATED_TASK]: _gone, ...rest } = meta;
  const { _meta: _m, ...body } = r;
  return Object.keys(rest).length > 0 ? { ...body, _meta: rest } : body;
};

/** How a task ended upstream, as its tasks/result gave it. */
export type Final = { result: Params } | { error: RpcError };

/**
 * The extension's DetailedTask from the upstream's latest state, its final answer (once its
 * tasks/result returned) and the requests it waits on. In 2026-07-28 a tool result with isError is
 * `completed` (2025-11-25 called it failed); `failed` carries the JSON-RPC error. Pure.
 */
export const detailedTask = (id: string, t: Params, final: Final | undefined, inputs: Record<string, Params>): Params => {
  const upstream = typeof t.status === 'string' ? t.status : 'working';
  if (upstream === 'cancelled') return modernTask(id, t, 'cancelled');
  if (final && 'result' in final) return { ...modernTask(id, t, 'completed'), result: final.result };
  if (final) return { ...modernTask(id, t, 'failed'), error: { code: final.error.code, message: final.error.message } };
  if (Object.keys(inputs).length > 0) return { ...modernTask(id, t, 'input_required'), inputRequests: inputs };
  // Terminal upstream but its answer not in yet, or waiting for input not asked yet: still working.
  return modernTask(id, t, 'working');
};

/** The error a lane of one era gets for the other era's task method. */
export const wrongEra = (method: string, modern: boolean): RpcFailure =>
  new RpcFailure({
    code: ERR.methodNotFound,
    message: modern
      ? `Method not found: ${method} is not part of the ${TASKS_EXTENSION} extension of revision 2026-07-28; poll tasks/get`
      : `Method not found: ${method} belongs to revision 2026-07-28's ${TASKS_EXTENSION} extension; use tasks/result`,
  });
