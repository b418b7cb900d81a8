import { ERR, RpcFailure } from '../../rpc/jsonrpc.js';
import type { CallStreams } from '../transport/call-streams.js';
import { type ClientRequests, reachLane, withoutTask } from './client-requests.js';
import type { Sessions } from './sessions.js';

type Params = Record<string, unknown>;

/** The longest a client task stays pinned to its session (a task's ttl may ask for less). */
const MAX_PIN_MS = 60 * 60 * 1000;
/** Pins kept at once, gateway-wide; past it the oldest go (their polls then read as not found). */
const MAX_PINS = 10_000;

const POLLS = new Set(['tasks/get', 'tasks/result', 'tasks/cancel']);

/**
 * Client-side tasks (2025-11-25): an upstream may ask a lane's client for sampling or elicitation
 * as a task, then poll it. A task lives in the one session whose client made it, so each is pinned
 * to that session, keyed by where the request came from (host and server) and the lane: a poll
 * reaches only that session, and a poll of any other id (another server's, another lane's, one
 * never made) is refused as not found without reaching any client.
 */
export class ClientTaskPins {
  private readonly pins = new Map<string, { holder: string; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  private static key(origin: string, lane: string, taskId: string): string {
    return `${origin}\u0000${lane}\u0000${taskId}`;
  }

  pin(origin: string, lane: string, taskId: string, holder: string, ttl: unknown): void {
    const ms = typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? Math.min(ttl, MAX_PIN_MS) : MAX_PIN_MS;
    const k = ClientTaskPins.key(origin, lane, taskId);
    this.pins.delete(k);
    this.pins.set(k, { holder, until: this.now() + ms });
    for (const old of this.pins.keys()) {
      if (this.pins.size <= MAX_PINS) break;
      this.pins.delete(old);
    }
  }

  holderOf(origin: string, lane: string, taskId: unknown): string | undefined {
    if (typeof taskId !== 'string') return undefined;
    const k = ClientTaskPins.key(origin, lane, taskId);
    const p = this.pins.get(k);
    if (!p) return undefined;
    if (p.until <= this.now()) {
      this.pins.delete(k);
      return undefined;
    }
    return p.holder;
  }
}

export interface ClientRelayDeps {
  clientRequests: ClientRequests;
  streams: CallStreams;
  sessions: Sessions;
  pins: ClientTaskPins;
}

/**
 * An upstream's request of a lane's client, as the front relays it. A poll of a client task goes to
 * the session that holds it; a task-augmented sampling or elicitation stays a task only if every
 * session of the lane declared it can run one (else the lane is asked plainly and answers at once),
 * and the task its client makes is pinned to the session that answered.
 */
export const relayToClient = (
  d: ClientRelayDeps,
  origin: string,
  lane: string,
  method: string,
  params: Params,
  /** The session a request about one of its tasks belongs to: it alone is asked (and may answer). */
  holder?: string,
): Promise<Params> => {
  if (holder !== undefined && !POLLS.has(method))
    return d.clientRequests.ask(lane, method, params, (msg) => d.sessions.notifyHolder(lane, holder, msg));
  if (POLLS.has(method)) {
    const holder = d.pins.holderOf(origin, lane, params.taskId);
    if (holder === undefined)
      return Promise.reject(new RpcFailure({ code: ERR.invalidParams, message: 'Failed to retrieve task: Task not found' }));
    return d.clientRequests.ask(lane, method, params, (msg) => d.sessions.notifyHolder(lane, holder, msg));
  }
  if (method === 'tasks/list')
    return Promise.reject(new RpcFailure({ code: ERR.methodNotFound, message: "lanegate does not list a lane's client tasks" }));
  const asTask = params.task !== undefined && d.sessions.takeClientTasks(lane, method);
  let answeredBy: string | undefined;
  return d.clientRequests
    .ask(
      lane,
      method,
      params,
      (msg) => reachLane(d.streams, d.sessions, lane, asTask ? msg : withoutTask(msg), true, origin.slice(origin.indexOf('\u0000') + 1)),
      300_000,
      (holder) => {
        answeredBy = holder;
      },
    )
    .then((result) => {
      const task = result.task as Params | undefined;
      if (asTask && answeredBy !== undefined && typeof task?.taskId === 'string')
        d.pins.pin(origin, lane, task.taskId, answeredBy, task.ttl);
      return result;
    });
};
