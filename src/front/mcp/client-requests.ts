import { randomUUID } from 'node:crypto';
import { ERR, RpcFailure } from '../../rpc/jsonrpc.js';
import type { CallStreams } from '../transport/call-streams.js';
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
            message: `no client of the lane can be asked ${method}: none has a stream open, or none declared the capability it needs`,
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
): readonly string[] | undefined => {
  // Only to sessions that declared what the request needs (the spec: a server does not send a
  // client requests of a capability it did not declare; a session that declared `capabilities: {}`
  // was sent roots/list after a child's restart, attack round 10). None: the upstream hears "no".
  const need = CAPABILITY_OF[String(msg.method)];
  const declares = (holder: string | undefined): boolean =>
    need === undefined || (holder !== undefined && sessions.declares(holder, lane, need));
  const call = streams.deliverTo(lane, undefined, msg, true, (s) => declares(s.holder));
  if (call) return call.holder !== undefined ? [call.holder] : [];
  // 2026-07-28 has no client-side tasks: a 2026-07-28 lane is asked the request itself, and answers it.
  if (modernInput && streams.deliverInput(lane, withoutTask(msg) as { id: string; method: string; params: Record<string, unknown> }))
    return [MODERN_CALL];
  const reached = sessions.notifyLaneSessions(lane, msg, (s) => declares(s.id));
  return reached.length > 0 ? reached : undefined;
};

/** The client capability each server-to-client request needs. */
const CAPABILITY_OF: Record<string, string | undefined> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};
