import { isListMethod, type ListMethod } from '../../link/lists.js';
import { targetOf } from '../../naming/anatomy.js';
import type { Policy } from '../../policy/model.js';
import { route } from '../../routing/route.js';
import { CALL_TOOL, SEARCH_TOOL, STATUS_TOOL } from './agent-tools.js';
import { paramsProblem, text } from './param-checks.js';

/** What to do with one request of a lane: decided here, done by dispatch. */
export type Plan =
  | { kind: 'answer' }
  | { kind: 'search-tools' }
  | { kind: 'list'; method: ListMethod; withStatus: boolean }
  | { kind: 'status' }
  | { kind: 'search'; query: string; limit: number }
  | { kind: 'call-through'; name: string; arguments: Record<string, unknown> }
  | { kind: 'tool-error'; text: string }
  | { kind: 'forward'; hostKey: string; server: string; target: string; timeoutMs: number }
  | { kind: 'refuse'; target: string }
  | { kind: 'tasks-list' }
  | { kind: 'task-unknown' }
  | { kind: 'not-found' };

/** Task methods that name one task: routed by the prefix of its (lanegate-made) id, as names are. */
const ONE_TASK = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update']);

/** The longest a front waits for a host beyond the server's own call timeout. */
const CALL_TIMEOUT_FLOOR_MS = 5_000;

/**
 * The request planner: a lane's request against the policy, with no IO. Gateway answers (ping,
 * setLevel), the gateway's own tools (status, search, call-through), listings, and forwarded
 * requests routed by the request-anatomy table, or refused when the name is outside the lane's
 * loadout. Pure.
 */
export const planRequest = (policy: Policy, lane: string, method: string, params: Record<string, unknown>): Plan => {
  if (method === 'ping' || method === 'logging/setLevel') return { kind: 'answer' };
  const mode = policy.lanes[lane]?.catalog ?? 'full';
  if (method === 'tools/list') return mode === 'search' ? { kind: 'search-tools' } : { kind: 'list', method, withStatus: true };
  if (method === 'tools/call') {
    const name = text(params.name);
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    if (name === STATUS_TOOL) return { kind: 'status' };
    if (mode === 'search' && name === SEARCH_TOOL)
      return { kind: 'search', query: text(args.query), limit: Math.min(25, Math.max(1, Number(args.limit ?? 8) || 8)) };
    if (mode === 'search' && name === CALL_TOOL) {
      const inner = text(args.name);
      const problem = paramsProblem('tools/call', { name: inner, arguments: args.arguments });
      if (problem) return { kind: 'tool-error', text: `${CALL_TOOL}: ${problem}` };
      if (inner === CALL_TOOL || inner === SEARCH_TOOL)
        return { kind: 'tool-error', text: `${inner} cannot be called through ${CALL_TOOL}` };
      return { kind: 'call-through', name: inner, arguments: (args.arguments ?? {}) as Record<string, unknown> };
    }
  }
  if (isListMethod(method)) return { kind: 'list', method, withStatus: false };
  if (method === 'tasks/list') return { kind: 'tasks-list' };
  // A task id outside the lane's loadout reads exactly like one that does not exist.
  const t = ONE_TASK.has(method) ? { kind: 'name' as const, value: text(params.taskId) } : targetOf(method, params);
  if (ONE_TASK.has(method) && !route(policy, lane, t?.value ?? '').ok) return { kind: 'task-unknown' };
  if (!t) return { kind: 'not-found' };
  const r = route(policy, lane, t.value, t.kind);
  if (!r.ok) return { kind: 'refuse', target: t.value };
  const timeoutMs = Math.max(CALL_TIMEOUT_FLOOR_MS, (policy.servers[r.server]?.callTimeoutMs ?? 60_000) + 2_000);
  return { kind: 'forward', hostKey: r.hostKey, server: r.server, target: t.value, timeoutMs };
};
