import { callerParams } from '../../link/forward.js';
import { hostsForLane } from '../../routing/route.js';
import { ERR } from '../../rpc/jsonrpc.js';
import type { Dispatched, DispatchServices } from './dispatch-types.js';
import type { CallContext } from './call-context.js';

/**
 * What the gateway declares of 2025-11-25 tasks to a handshake-era lane: tools/call may be a task
 * (where the upstream runs it as one; elsewhere the call says so), and tasks are listed and cancelled.
 */
export const TASK_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/**
 * What it declares to a 2026-07-28 lane: the tasks extension (SEP-2663), which that revision moved
 * tasks into. A tool an upstream runs only as a task is answered with a task to a lane that
 * declares the extension on its request.
 */
export const TASKS_EXTENSION = { 'io.modelcontextprotocol/tasks': {} };

const MISSING_CLIENT_CAPABILITY = ERR.missingCapability;
const MODERN_TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/**
 * A 2026-07-28 lane's tasks/get, tasks/update or tasks/cancel on a request that does not declare
 * the tasks extension: -32021 naming it (the extension's methods exist only for a client that
 * declares it). Undefined when the request may go on. Pure.
 */
export const modernTaskGate = (method: string, params: Record<string, unknown>): Dispatched | undefined => {
  // Not part of the extension, whatever the request names.
  if (method === 'tasks/result' || method === 'tasks/list')
    return {
      status: 200,
      error: {
        code: ERR.methodNotFound,
        message: `Method not found: ${method} is not part of the io.modelcontextprotocol/tasks extension of revision 2026-07-28; poll tasks/get`,
      },
    };
  if (!MODERN_TASK_METHODS.has(method)) return undefined;
  const caps = (params._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/clientCapabilities'] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  if (caps?.extensions?.['io.modelcontextprotocol/tasks'] !== undefined) return undefined;
  return {
    status: 200,
    error: {
      code: MISSING_CLIENT_CAPABILITY,
      message: `Missing required client capability: ${method} belongs to the io.modelcontextprotocol/tasks extension; declare it in clientCapabilities`,
      data: { requiredCapabilities: { extensions: TASKS_EXTENSION } },
    },
  };
};

/** A task method of the other era answers -32601 whatever it names; a 2026-07-28 one is gated as above. Pure. */
export const taskEraGate = (
  era: 'legacy' | 'modern' | undefined,
  method: string,
  params: Record<string, unknown>,
): Dispatched | undefined => {
  if (era === 'modern') return modernTaskGate(method, params);
  if (method !== 'tasks/update') return undefined;
  return {
    status: 200,
    error: { code: ERR.methodNotFound, message: 'Method not found: tasks/update belongs to revision 2026-07-28 (the tasks extension)' },
  };
};

/** How long tasks/list waits for each host (each asks its children for their tasks' states). */
const LIST_TIMEOUT_MS = 15_000;

/**
 * tasks/list for a lane's session: every host the lane's catalog spans lists that session's own
 * tasks (ids prefixed by server, as names are), merged in one page. A host that cannot answer
 * holds no reachable task of the lane. The gateway hands out no cursor, so any cursor is unknown.
 */
export const listTasks = async (d: DispatchServices, x: CallContext, params: Record<string, unknown>): Promise<Dispatched> => {
  if (params.cursor !== undefined) return { status: 200, error: { code: ERR.invalidParams, message: 'Invalid cursor' } };
  const lane = x.lane;
  const caller = { lane, era: x.era, holder: x.holder ?? '' };
  const lists = await Promise.all(
    [...hostsForLane(d.policy(), lane).keys()].map(async (key) => {
      try {
        const raw = await d.hostRequestRaw(key, 'tasks/list', callerParams({}, caller), LIST_TIMEOUT_MS, x.signal);
        const tasks = raw.parsed().tasks;
        return Array.isArray(tasks) ? (tasks as Record<string, unknown>[]) : [];
      } catch {
        return [];
      }
    }),
  );
  return { status: 200, result: { tasks: lists.flat() } };
};
