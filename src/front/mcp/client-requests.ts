import { randomUUID } from 'node:crypto';
import { ERR, RpcFailure } from '../../rpc/jsonrpc.js';
import { type CallStreams, capabilityFor } from '../transport/call-streams.js';
import type { Sessions } from './sessions.js';

/** Who may answer: the sessions the request reached, or the 2026-07-28 call it was put to (MODERN_CALL). */
export const MODERN_CALL = '\u0000modern-call';

/** The id the gateway gives a request of a lane's client: random, so no lane can guess or count another's. */
type ClientRequestId = `lg-${string}`;

interface Waiting {
  lane: string;
  holders: readonly string[];
  resolve: (r: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  onAnswered?: (holder: string) => void;
}

/**
 * Requests an upstream makes of a lane's client (sampling, elicitation, roots), relayed on the
 * stream of that lane's call (or its GET stream). The answer is accepted only from a holder the
 * request reached (the session of that call, or the sessions whose GET stream carried it): ids are
 * gateway-made and unguessable, and another session's or lane's POST of that id is ignored.
 */
export class ClientRequests {
  private readonly waiting = new Map<ClientRequestId, Waiting>();

  ask(
    lane: string,
    method: string,
    params: Record<string, unknown>,
    deliver: (msg: Record<string, unknown>) => readonly string[] | undefined,
    timeoutMs = 300_000,
    /** Told which holder answered (a client task lives in that session). */
    onAnswered?: (holder: string) => void,
  ): Promise<Record<string, unknown>> {
    // Random only: a counter shared by every lane would let one lane count another's requests.
    const id: ClientRequestId = `lg-${randomUUID()}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new RpcFailure({ code: ERR.timeout, message: `the lane did not answer ${method}` }));
      }, timeoutMs);
      const w: Waiting = { lane, holders: [], resolve, reject, timer, ...(onAnswered ? { onAnswered } : {}) };
      this.waiting.set(id, w);
      const holders = deliver({ jsonrpc: '2.0', id, method, params });
      if (holders) w.holders = holders;
      else {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(
          new RpcFailure({
            code: ERR.methodNotFound,
            message: `no client of the lane can be asked ${method}: none has a stream open, none declared the capability it needs, or several calls to that server are in flight and the request cannot be told to one`,
          }),
        );
      }
    });
  }

  /**
   * A JSON-RPC response from `holder` of `lane` (a session; MODERN_CALL for a 2026-07-28 retry's
   * inputResponses). Returns whether it answered a request that reached that holder.
   */
  answer(
    lane: string,
    holder: string,
    msg: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } },
  ): boolean {
    const id = typeof msg.id === 'string' && msg.id.startsWith('lg-') ? (msg.id as ClientRequestId) : undefined;
    const w = id === undefined ? undefined : this.waiting.get(id);
    if (!w || w.lane !== lane || id === undefined || !w.holders.includes(holder)) return false;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    if (msg.error) w.reject(new RpcFailure({ code: msg.error.code, message: msg.error.message }));
    else {
      w.onAnswered?.(holder);
      w.resolve(msg.result ?? {});
    }
    return true;
  }

  /**
   * A holder ended (a session): requests only it could answer fail now, instead of holding their
   * upstream until the timeout; a request that reached other holders too waits for them.
   */
  dropHolder(lane: string, holder: string): void {
    for (const [id, w] of this.waiting) {
      if (w.lane !== lane || !w.holders.includes(holder)) continue;
      w.holders = w.holders.filter((h) => h !== holder);
      if (w.holders.length === 0) this.fail(id, w, 'the session the request reached ended');
    }
  }

  /** Everything of the lane fails now (its requests can no longer be answered). */
  dropLane(lane: string): void {
    for (const [id, w] of this.waiting) if (w.lane === lane) this.fail(id, w, 'the lane is gone');
  }

  private fail(id: ClientRequestId, w: Waiting, why: string): void {
    this.waiting.delete(id);
    clearTimeout(w.timer);
    w.reject(new RpcFailure({ code: ERR.cancelled, message: why }));
  }
}

/** A request without its client-side task augmentation (`params.task`). Pure. */
export const withoutTask = (msg: Record<string, unknown>): Record<string, unknown> => {
  const params = msg.params as Record<string, unknown> | undefined;
  if (params?.task === undefined) return msg;
  const { task: _t, ...rest } = params;
  return { ...msg, params: rest };
};

/** Whether a session of the lane declared the client capability `msg` needs (any holder does when it needs none). */
const declaring =
  (sessions: Sessions, lane: string, msg: Record<string, unknown>) =>
  (holder: string | undefined): boolean => {
    const need = capabilityFor(String(msg.method));
    return need === undefined || (holder !== undefined && sessions.declares(holder, lane, need));
  };

/**
 * Puts an upstream's request to a lane's client: on the lane's legacy call in flight (its session
 * may answer), else as input for its 2026-07-28 call (answered by that call's retry, when allowed),
 * else on the lane's GET streams (those sessions may answer). Returns who may answer, or undefined
 * when nothing of the lane is open.
 */
export const reachLane = (
  streams: CallStreams,
  sessions: Sessions,
  lane: string,
  msg: Record<string, unknown>,
  modernInput: boolean,
  /** The server asking (undefined: any server's calls count). */
  server?: string,
): readonly string[] | undefined => {
  // Only to sessions that declared what the request needs (the spec: a server does not send a
  // client requests of a capability it did not declare; a session that declared `capabilities: {}`
  // was sent roots/list after a child's restart, attack round 10). None: the upstream hears "no".
  const declares = declaring(sessions, lane, msg);
  // A request during a call is that call's, and carries its data (a prompt, a form), but a stdio
  // server's request names no call. So it goes only to the one session whose calls to this server
  // are in flight, on its call's stream; with calls of several sessions in flight it cannot be told
  // to one and is refused, and it never passes to another session (attack round 11: one session's
  // prompt was written to another's stream, and that session's answer became its result).
  const calls = streams.calls(lane, true, server);
  if (calls.length > 0) {
    // A 2026-07-28 call of the lane to the same server may be the one asking: it cannot be told.
    if (streams.calls(lane, false, server).length > 0) return undefined;
    const holders = new Set(calls.map((s) => s.holder));
    const [only] = holders;
    if (holders.size !== 1 || only === undefined || !declares(only)) return undefined;
    const call = streams.deliverTo(lane, undefined, msg, true, (s) => calls.includes(s));
    return call ? [only] : undefined;
  }
  // 2026-07-28 has no client-side tasks: a 2026-07-28 lane is asked the request itself, and answers it.
  if (modernInput) {
    const put = streams.deliverInput(lane, withoutTask(msg) as { id: string; method: string; params: Record<string, unknown> }, server);
    if (put === 'delivered') return [MODERN_CALL];
    if (put === 'refused') return undefined;
  }
  // No call in flight: a request of the server's own (roots/list at start-up) goes to the GET
  // streams of the sessions that declared what it needs.
  const reached = sessions.notifyLaneSessions(lane, msg, (s) => declares(s.id));
  return reached.length > 0 ? reached : undefined;
};

/**
 * A request the front makes of the client of ONE call (a 2026-07-28 upstream's input_required
 * answered by a handshake-era lane): on that session's call stream, if it declared what it needs.
 */
export const reachSession = (
  streams: CallStreams,
  sessions: Sessions,
  lane: string,
  holder: string | undefined,
  msg: Record<string, unknown>,
): readonly string[] | undefined => {
  if (holder === undefined || !declaring(sessions, lane, msg)(holder)) return undefined;
  const call = streams.deliverTo(lane, undefined, msg, true, (s) => s.holder === holder);
  if (call) return [holder];
  const reached = sessions.notifyHolder(lane, holder, msg);
  return reached ?? undefined;
};
