import { randomUUID } from 'node:crypto';
import { enqueue } from './sse-pump.js';

/**
 * Notifications that belong to a lane's call in flight (progress, log lines) find their way to
 * that call's HTTP response. A call answers as plain JSON unless something arrives for it before
 * its result; then the response becomes an SSE stream. So the fast path stays fast.
 */
export interface CallStream {
  readonly lane: string;
  /**
   * The progress token this call carries upstream: minted here, unique to the call, so two holders
   * of one lane (two sessions, two HTTP requests) may choose the same token at once.
   */
  readonly token?: string;
  /** The token the lane chose; progress goes back to it under this one. */
  readonly laneToken?: string | number;
  /** A modern (2026-07-28) call cannot carry server-to-client requests (MRTR instead). */
  readonly legacy: boolean;
  /** The session of a legacy call: the only one that may answer a request sent on its stream. */
  readonly holder?: string;
  /** The server its request was routed to (CallContext.routed), once known. */
  server?: string;
  /** Log lines go only to calls that asked for them (a legacy session, or a modern logLevel in _meta). */
  readonly logs: boolean;
  /** Server-to-client requests waiting to be turned into input_required (modern calls). */
  readonly inputs: { id: string; method: string; params: Record<string, unknown> }[];
  /** The modern lane's declared client capabilities, for input requests. */
  caps?: Record<string, unknown>;
  /** Set when the upstream asked for something the lane did not declare (answered with ERR.missingCapability). */
  missingCapability?: string;
  readonly queue: Record<string, unknown>[];
  /** Resolves when the first message arrives. */
  readonly first: Promise<void>;
  wake: () => void;
  closed: boolean;
}

/**
 * The progress token a call carries upstream, minted once here: the host sends it on to the
 * upstream as it is (host/progress-tokens.ts), so a call's token is minted at one hop only.
 */
const PROGRESS_PREFIX = 'lgp-';

/** The client capability each server-to-client request needs (undefined: none). */
export const capabilityFor = (method: string): string | undefined =>
  method === 'sampling/createMessage'
    ? 'sampling'
    : method === 'elicitation/create'
      ? 'elicitation'
      : method === 'roots/list'
        ? 'roots'
        : undefined;

/** Whether a message may go to this call: of its lane, legacy if it must be, a log line only if the call asked for logs. */
const fits = (s: CallStream, lane: string, legacyOnly: boolean, log: boolean): boolean =>
  s.lane === lane && (s.legacy || !legacyOnly) && (s.logs || !log);

export class CallStreams {
  /** Each lane's open call streams, oldest first (a log line with no token goes to the newest). */
  private readonly byLane = new Map<string, Set<CallStream>>();
  /** Open call streams by the progress token minted for them. */
  private readonly byToken = new Map<string, CallStream>();

  /** Opens a call's stream; `laneToken` is the progress token the lane chose, if any. */
  start(lane: string, laneToken: string | number | undefined, legacy = true, logs = legacy, holder?: string): CallStream {
    let resolve: () => void = () => undefined;
    const first = new Promise<void>((r) => {
      resolve = r;
    });
    const s: CallStream = {
      lane,
      // Random, not counted: an upstream sees the tokens it is sent, and a counter shared by every
      // lane let it count other lanes' calls (attack round 11, INFO).
      ...(laneToken !== undefined ? { token: `${PROGRESS_PREFIX}${randomUUID()}`, laneToken } : {}),
      legacy,
      logs,
      ...(holder !== undefined ? { holder } : {}),
      queue: [],
      inputs: [],
      first,
      wake: resolve,
      closed: false,
    };
    this.add(s);
    return s;
  }

  private add(s: CallStream): void {
    let open = this.byLane.get(s.lane);
    if (!open) {
      open = new Set();
      this.byLane.set(s.lane, open);
    }
    open.add(s);
    if (s.token !== undefined) this.byToken.set(s.token, s);
  }

  end(s: CallStream): void {
    s.closed = true;
    this.byLane.get(s.lane)?.delete(s);
    if (s.token !== undefined) this.byToken.delete(s.token);
  }

  /**
   * A server-to-client request for a MODERN call of the lane: queued for an input_required answer
   * ('delivered'); 'refused' when the call did not declare what it needs (it is answered that it is
   * missing; the request goes to no one else: it carries that call's data), and when several of the
   * lane's modern calls to `server` are in flight (which one asked cannot be told); 'none' when the
   * lane has no modern call in flight to it.
   */
  deliverInput(
    lane: string,
    msg: { id: string; method: string; params: Record<string, unknown> },
    server?: string,
  ): 'delivered' | 'refused' | 'none' {
    const calls = this.calls(lane, false, server);
    const target = calls[0];
    if (!target) return 'none';
    // A stdio server's request names no call: with two of the lane's calls to it in flight it
    // cannot be told to one, and neither is failed nor handed another's prompt (attack round 15:
    // the lane's latest call got the request, and one that had not declared what it needs failed).
    if (calls.length > 1) return 'refused';
    const need = capabilityFor(msg.method) ?? 'roots';
    if (target.caps?.[need] === undefined) {
      // Servers ask roots/list unprompted (at start-up, on a hunch): that is no reason to fail the
      // call in flight, so the upstream hears "no" instead. Sampling and elicitation come from the call.
      if (need === 'roots') return 'refused';
      target.missingCapability = need;
      target.wake();
      return 'refused';
    }
    target.inputs.push(msg);
    target.wake();
    return 'delivered';
  }

  /** The lane's calls of one era in flight that `server` may be asking for (a call not yet routed counts for every server). */
  calls(lane: string, legacy: boolean, server?: string): CallStream[] {
    const out: CallStream[] = [];
    for (const s of this.byLane.get(lane) ?? [])
      if (s.legacy === legacy && (server === undefined || s.server === undefined || s.server === server)) out.push(s);
    return out;
  }

  /** Re-attaches a parked call's stream when its retry arrives. */
  reopen(s: CallStream): void {
    s.closed = false;
    this.add(s);
  }

  /**
   * Delivers to the lane's call that owns `token`; a message without a token (a log line) goes
   * to the lane's most recent call in flight. Returns false when no call of the lane is open.
   */
  deliver(lane: string, token: string | number | undefined, msg: Record<string, unknown>, legacyOnly = false): boolean {
    return this.deliverTo(lane, token, msg, legacyOnly) !== undefined;
  }

  private targetOf(
    lane: string,
    token: string | number | undefined,
    msg: Record<string, unknown>,
    legacyOnly: boolean,
    accept?: (s: CallStream) => boolean,
  ): CallStream | undefined {
    const log = msg.method === 'notifications/message';
    const ok = (s: CallStream): boolean => fits(s, lane, legacyOnly, log) && (accept?.(s) ?? true);
    if (token !== undefined) {
      const s = typeof token === 'string' ? this.byToken.get(token) : undefined;
      return s && ok(s) ? s : undefined;
    }
    let target: CallStream | undefined;
    for (const s of this.byLane.get(lane) ?? []) if (ok(s)) target = s;
    return target;
  }

  /** As deliver; returns the call stream that took it. `accept` narrows the calls it may go to. */
  deliverTo(
    lane: string,
    token: string | number | undefined,
    msg: Record<string, unknown>,
    legacyOnly = false,
    accept?: (s: CallStream) => boolean,
  ): CallStream | undefined {
    const target = this.targetOf(lane, token, msg, legacyOnly, accept);
    if (!target) return undefined;
    const params = msg.params as Record<string, unknown> | undefined;
    // Progress goes back under the token the lane chose for this call.
    enqueue(
      target.queue,
      token !== undefined && target.laneToken !== undefined && params
        ? { ...msg, params: { ...params, progressToken: target.laneToken } }
        : msg,
    );
    target.wake();
    return target;
  }
}

/** The request as it goes upstream: the call's own minted progress token in place of the lane's. */
export const withCallToken = <R extends { params?: Record<string, unknown> }>(req: R, s: CallStream): R => {
  if (s.token === undefined) return req;
  const params = req.params ?? {};
  return {
    ...req,
    params: { ...params, _meta: { ...((params._meta as Record<string, unknown> | undefined) ?? {}), progressToken: s.token } },
  };
};
