import { paramHeadersOf } from '../../link/param-headers.js';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { type CallStream, withCallToken } from './call-streams.js';
import type { ParkedCall } from '../mcp/mrtr.js';
import { type Dispatched, dispatch } from '../mcp/dispatch.js';
import { type McpHttpDeps, rpcErrorData, withTraceOf } from './http-deps.js';

const STREAMABLE = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete']);

/**
 * Dispatches and answers. A call whose client accepts SSE answers as plain JSON unless a
 * notification for it (progress, a log line) arrives before its result: then the response turns
 * into an SSE stream carrying those notifications and, last, the result.
 */
const wake = (s: CallStream): Promise<void> =>
  new Promise<void>((r) => {
    s.wake = r;
    if (s.queue.length > 0 || s.inputs.length > 0 || s.missingCapability) r();
  });

/**
 * A 2026-07-28 call: JSON by default; SSE when notifications arrive first; and when the upstream
 * asks the client something (sampling, elicitation, roots), an `input_required` result that parks
 * the call until the lane retries with `inputResponses` and the sealed `requestState`.
 */
const answerModern = async (
  c: Context,
  d: McpHttpDeps,
  lane: string,
  req: RpcRequest,
  render: (r: Dispatched) => { status: number; body: Record<string, unknown> },
): Promise<Response> => {
  const params = req.params ?? {};
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const callKey = `${req.method}:${JSON.stringify(params.name ?? params.uri ?? params.ref ?? '')}`;
  const caps = (meta['io.modelcontextprotocol/clientCapabilities'] ?? {}) as Record<string, unknown>;
  let s: CallStream;
  let done: Promise<Dispatched>;
  let call = req;
  let resumed: ParkedCall | undefined;
  // inputResponses without a requestState resume nothing: the call is a fresh one, and the
  // responses go on to an upstream that speaks 2026-07-28 (which may use or ignore them).
  if (params.requestState !== undefined) {
    const t = d.mrtr.take(params.requestState, lane, callKey);
    if (!t.ok) return rpcErrorData(c, { status: 400, code: ERR.invalidParams, message: `Invalid params: ${t.reason}` }, req.id);
    if ('call' in t) resumed = t.call;
    else {
      // The upstream's own input round: re-issue the call to it with its state and the answers.
      const { requestState: _ours, ...rest } = params;
      call = { ...req, params: { ...rest, ...(t.upstream !== undefined ? { requestState: t.upstream } : {}) } };
    }
  }
  if (resumed) {
    s = resumed.stream;
    done = resumed.done;
    s.caps = caps;
    d.streams.reopen(s);
    const responses = (params.inputResponses ?? {}) as Record<string, Record<string, unknown>>;
    for (const [k, id] of resumed.pending) {
      const r = responses[k];
      d.clientRequests.answer(
        lane,
        r ? { id, result: r } : { id, error: { code: ERR.invalidParams, message: `no input response for ${k}` } },
      );
    }
  } else {
    const token = meta.progressToken;
    const wantsLogs = meta['io.modelcontextprotocol/logLevel'] !== undefined;
    s = d.streams.start(lane, typeof token === 'string' || typeof token === 'number' ? token : undefined, false, wantsLogs);
    s.caps = caps;
    done = dispatch(d, lane, withCallToken(call, s)).then((r) => {
      // An upstream that spoke 2026-07-28 asked for input itself: pass its request through, with
      // its requestState sealed inside ours (bound to this lane and call, one-shot).
      if (r.result?.resultType !== 'input_required') return r;
      return { ...r, result: { ...r.result, requestState: d.mrtr.sealUpstream(lane, callKey, r.result.requestState) } };
    });
  }
  let result: Dispatched | undefined;
  void done.then((r) => {
    result = r;
    s.wake();
  });
  const accepts = (c.req.header('accept') ?? '').includes('text/event-stream');
  const inputRequired = async (): Promise<Record<string, unknown>> => {
    // Requests an upstream sends together reach the front one by one (via its host): gather them
    // until a short quiet gap, so one round carries all of them.
    for (let i = 0, seen = -1; i < 10 && seen !== s.inputs.length; i += 1) {
      seen = s.inputs.length;
      await new Promise((r) => setTimeout(r, 15));
    }
    const pending = new Map<string, string>();
    const inputRequests: Record<string, unknown> = {};
    s.inputs.splice(0).forEach((x, i) => {
      const k = `input-${i + 1}`;
      pending.set(k, x.id);
      inputRequests[k] = { method: x.method, params: x.params };
    });
    d.streams.end(s);
    // If the lane never retries, its upstream call must not hang on unanswered questions.
    const requestState = d.mrtr.park({ lane, callKey, done, stream: s, pending }, () => {
      for (const id of pending.values())
        d.clientRequests.answer(lane, { id, error: { code: ERR.timeout, message: 'the lane did not retry in time' } });
    });
    return { jsonrpc: '2.0', id: req.id, result: { resultType: 'input_required', inputRequests, requestState } };
  };
  for (let guard = 0; guard < 1_000_000; guard += 1) {
    if (result) {
      d.streams.end(s);
      const out = render(result);
      return c.json(out.body, out.status as 200);
    }
    if (s.inputs.length > 0) return c.json(await inputRequired());
    if (s.missingCapability) {
      // Requests sent together arrive a tick apart: answer with the ones the lane can serve, if any.
      await new Promise((r) => setTimeout(r, 30));
      if (s.inputs.length > 0) return c.json(await inputRequired());
      d.streams.end(s);
      const need = s.missingCapability;
      return rpcErrorData(
        c,
        {
          status: 400,
          code: -32021,
          message: `Missing required client capability: ${need}`,
          data: { requiredCapabilities: { [need]: {} } },
        },
        req.id,
      );
    }
    if (s.queue.length > 0 && accepts) break;
    s.queue.length = 0;
    await wake(s);
  }
  return streamSSE(c, async (stream) => {
    try {
      for (let guard = 0; guard < 1_000_000; guard += 1) {
        while (s.queue.length > 0) await stream.writeSSE({ event: 'message', data: JSON.stringify(s.queue.shift()) });
        if (result) {
          await stream.writeSSE({ event: 'message', data: JSON.stringify(render(result).body) });
          break;
        }
        if (s.inputs.length > 0) {
          await stream.writeSSE({ event: 'message', data: JSON.stringify(await inputRequired()) });
          return;
        }
        await wake(s);
      }
    } finally {
      if (result) d.streams.end(s);
    }
  });
};

let modernSeq = 0;
/**
 * A call in flight belongs to its holder: a session (handshake era) or the single HTTP request
 * that carried it (2026-07-28), never to the lane as a whole; two holders may use one id at once.
 */
const sessionKey = (lane: string, session: string, id: unknown): string => `${lane}\u0000${session}\u0000${JSON.stringify(id)}`;
const inflightKey = (lane: string, session: string | undefined, id: unknown): string => {
  if (session !== undefined) return sessionKey(lane, session, id);
  modernSeq += 1;
  return `${lane}\u0000modern:${modernSeq}\u0000${JSON.stringify(id)}`;
};

/** notifications/cancelled from a lane aborts that lane's call (in its own session) and the upstream work. */
const MAX_INPUT_ROUNDS = 8;

/**
 * A handshake-era lane in front of an upstream spoken to in 2026-07-28: the upstream's
 * `input_required` becomes server-to-client requests on the lane's call stream (or GET stream),
 * and the answers go back to the upstream as `inputResponses` with its `requestState`.
 */
const dispatchLegacy = async (d: McpHttpDeps, lane: string, req: RpcRequest): Promise<Dispatched> => {
  let r = await dispatch(d, lane, req);
  for (let round = 0; round < MAX_INPUT_ROUNDS && r.result?.resultType === 'input_required'; round += 1) {
    const inputs = (r.result.inputRequests ?? {}) as Record<string, { method: string; params?: Record<string, unknown> }>;
    const entries = await Promise.all(
      Object.entries(inputs).map(async ([k, v]) => {
        const answer = await d.clientRequests.ask(
          lane,
          v.method,
          v.params ?? {},
          (msg) => d.streams.deliver(lane, undefined, msg, true) || d.sessions.notifyLane(lane, msg),
        );
        return [k, answer] as const;
      }),
    );
    const state = r.result.requestState;
    r = await dispatch(d, lane, {
      ...req,
      params: {
        ...(req.params ?? {}),
        inputResponses: Object.fromEntries(entries),
        ...(typeof state === 'string' ? { requestState: state } : {}),
      },
    });
  }
  if (r.result?.resultType === 'input_required')
    return { status: 200, error: { code: ERR.internal, message: `the upstream kept asking for input after ${MAX_INPUT_ROUNDS} rounds` } };
  if (r.result?.resultType !== undefined) {
    const { resultType: _t, ttlMs: _l, cacheScope: _c, ...legacy } = r.result;
    return { ...r, result: legacy };
  }
  return r;
};

export const cancelFrom = (
  d: McpHttpDeps,
  lane: string,
  session: string | undefined,
  n: { method: string; params?: Record<string, unknown> },
): void => {
  if (n.method !== 'notifications/cancelled') return;
  if (session !== undefined) {
    d.inflight.get(sessionKey(lane, session, n.params?.requestId))?.abort();
    return;
  }
  const id = JSON.stringify(n.params?.requestId);
  // 2026-07-28: the cancel names an id, not its request. It cancels the lane's one call in flight
  // with that id; if several holders of the lane use that id at once it is ambiguous, and cancels
  // none rather than the wrong one.
  const prefix = `${lane}\u0000modern:`;
  const suffix = `\u0000${id}`;
  const hits = [...d.inflight].filter(([k]) => k.startsWith(prefix) && k.endsWith(suffix));
  if (hits.length === 1) hits[0]?.[1].abort();
};

/** The request's headers as node parsed them (Hono's c.req.header() would build a whole Request for this). */
const rawHeaders = (c: Context): Record<string, string> => {
  const h = (c.env as { incoming?: import('node:http').IncomingMessage } | undefined)?.incoming?.headers ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (typeof v === 'string') out[k] = v;
  return out;
};

export const answer = async (
  c: Context,
  d0: McpHttpDeps,
  lane: string,
  req: RpcRequest,
  session: string | undefined,
  render: (r: Dispatched) => { status: number; body: Record<string, unknown> },
): Promise<Response> => {
  const ac = new AbortController();
  const key = inflightKey(lane, session, req.id);
  d0.inflight.set(key, ac);
  // A legacy call ends with its connection; a modern one may outlive its request (MRTR parks it).
  if (session !== undefined) {
    // The node response closing before it finished means the client went away. (c.req.raw would
    // build a full Request object on this hot path just to read its signal.)
    const outgoing = (c.env as { outgoing?: import('node:http').ServerResponse } | undefined)?.outgoing;
    outgoing?.once('close', () => {
      if (!outgoing.writableFinished) ac.abort();
    });
  }
  const d: McpHttpDeps = {
    ...withTraceOf(c, d0),
    signal: ac.signal,
    era: session === undefined ? 'modern' : 'legacy',
    ...(session !== undefined ? { holder: session } : {}),
    ...(session === undefined && req.method === 'tools/call' ? { paramHeaders: paramHeadersOf(rawHeaders(c)) } : {}),
  };
  if (session === undefined && STREAMABLE.has(req.method)) {
    return answerModern(c, d, lane, req, render).finally(() => d0.inflight.delete(key));
  }
  const accepts = (c.req.header('accept') ?? '').includes('text/event-stream');
  if (!STREAMABLE.has(req.method) || !accepts) {
    const out = render(await dispatchLegacy(d, lane, req).finally(() => d0.inflight.delete(key)));
    return c.json(out.body, out.status as 200);
  }
  const token = (req.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const wantsLogs =
    session !== undefined || (req.params?._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/logLevel'] !== undefined;
  const s = d.streams.start(
    lane,
    typeof token === 'string' || typeof token === 'number' ? token : undefined,
    session !== undefined,
    wantsLogs,
  );
  const done = dispatchLegacy(d, lane, withCallToken(req, s)).finally(() => d0.inflight.delete(key));
  const first = await Promise.race([done, s.first.then(() => undefined)]);
  if (first) {
    d.streams.end(s);
    const out = render(first);
    return c.json(out.body, out.status as 200);
  }
  return streamSSE(c, async (stream) => {
    let result: Dispatched | undefined;
    void done.then((r) => {
      result = r;
      s.wake();
    });
    try {
      for (let guard = 0; guard < 1_000_000; guard += 1) {
        while (s.queue.length > 0) await stream.writeSSE({ event: 'message', data: JSON.stringify(s.queue.shift()) });
        if (result) break;
        await new Promise<void>((r) => {
          s.wake = r;
          if (s.queue.length > 0 || result) r();
        });
      }
      if (result) await stream.writeSSE({ event: 'message', data: JSON.stringify(render(result).body) });
    } finally {
      d.streams.end(s);
    }
  });
};
