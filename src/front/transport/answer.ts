import { type Exchange, type Replied, whenClosed } from './exchange.js';
import { streamSse } from './sse-stream.js';
import { pumpSse } from './sse-pump.js';
import { answerModern } from './answer-modern.js';
import { reachSession } from '../mcp/client-requests.js';
import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { withCallToken } from './call-streams.js';
import { CALL_METHODS, type Dispatched, dispatch, parsedResult } from '../mcp/dispatch.js';
import type { RawResult } from '../../rpc/raw.js';
import type { McpHttpDeps } from './http-deps.js';
import type { CallContext, CancellableCall, RequestId } from '../mcp/call-context.js';
import { metaProblem } from '../mcp/param-checks.js';
import { progressTokenOf } from '../mcp/progress-token.js';

/** A result passed on as text is parsed only if it may carry the 2026-07-28 resultType this path acts on. */
const readable = (r: Dispatched): Dispatched => (r.raw?.mayHave('resultType') ? parsedResult(r) : r);

/** A handshake-era answer as JSON-RPC: the result (or error) under the lane's id. */
export const legacyRender =
  (id: unknown) =>
  (r: Dispatched): { status: number; body: Record<string, unknown> } => ({
    status: r.status,
    body: r.error ? { jsonrpc: '2.0', id, error: r.error } : { jsonrpc: '2.0', id, result: r.result ?? {} },
  });

/** The same answer around a result the front did not parse: the host's bytes, spliced. */
const rawAnswer = (c: Exchange, id: unknown, r: Dispatched & { raw: RawResult }): Replied =>
  c.body([`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, ...r.raw.parts, '}'], r.status as 200, {
    'content-type': 'application/json',
  });

/** notifications/cancelled from a lane aborts that lane's call (in its own session) and the upstream work. */
const MAX_INPUT_ROUNDS = 8;

/**
 * A handshake-era lane in front of an upstream spoken to in 2026-07-28: the upstream's
 * `input_required` becomes server-to-client requests on the lane's call stream (or GET stream),
 * and the answers go back to the upstream as `inputResponses` with its `requestState`.
 */
const dispatchLegacy = async (d: McpHttpDeps, x: CallContext, req: RpcRequest): Promise<Dispatched> => {
  const lane = x.lane;
  let r = readable(await dispatch(d, x, req));
  for (let round = 0; round < MAX_INPUT_ROUNDS && r.result?.resultType === 'input_required'; round += 1) {
    const inputs = (r.result.inputRequests ?? {}) as Record<string, { method: string; params?: Record<string, unknown> }>;
    const entries = await Promise.all(
      Object.entries(inputs).map(async ([k, v]) => {
        // The input is this call's: asked of its own session only.
        const answer = await d.calls.clientRequests.ask(lane, v.method, v.params ?? {}, (msg) =>
          reachSession(d.calls.streams, d.sessions, lane, x.holder, msg),
        );
        return [k, answer] as const;
      }),
    );
    const state = r.result.requestState;
    r = readable(
      await dispatch(d, x, {
        ...req,
        params: {
          ...(req.params ?? {}),
          inputResponses: Object.fromEntries(entries),
          ...(typeof state === 'string' ? { requestState: state } : {}),
        },
      }),
    );
  }
  if (r.result?.resultType === 'input_required')
    return { status: 200, error: { code: ERR.internal, message: `the upstream kept asking for input after ${MAX_INPUT_ROUNDS} rounds` } };
  if (r.result?.resultType !== undefined) {
    const { resultType: _t, ttlMs: _l, cacheScope: _c, ...legacy } = r.result;
    return { ...r, result: legacy };
  }
  return r;
};

/** A lane's notifications/cancelled: its call with that id, under its session (or, 2026-07-28, the lane's one such call), is aborted. */
export const cancelFrom = (
  d: McpHttpDeps,
  lane: string,
  session: string | undefined,
  n: { method: string; params?: Record<string, unknown> },
): void => {
  if (n.method !== 'notifications/cancelled') return;
  d.calls.cancel({ of: 'request', lane, holder: session, id: n.params?.requestId as RequestId });
};

type Render = (r: Dispatched) => { status: number; body: Record<string, unknown> };

/**
 * The call, in flight under its holder until `release`: cancellable by the lane, and aborted when
 * its response closes before it finished: the client went away (perhaps already). In 2026-07-28
 * that IS the cancellation (the spec's Streamable HTTP transport: closing the response stream
 * cancels its request); before, a 2026-07-28 call ran on to its end, its byte turn already given
 * back, so a lane that dropped each 4 MB request at once piled them up on its host's link (attack
 * round 14). A call MRTR parks has finished its response (its input round) and runs on.
 */
const track = (c: Exchange, d: McpHttpDeps, x: CancellableCall): (() => void) => {
  d.calls.track(x);
  const outgoing = c.outgoing;
  whenClosed(outgoing, () => {
    if (!outgoing.writableFinished) x.abort.abort();
  });
  return () => d.calls.release(x);
};

/** A dispatched answer as JSON: the host's text spliced in when the front did not parse it. */
const jsonAnswer = (c: Exchange, id: unknown, r: Dispatched, render: Render): Replied => {
  if (r.raw) return rawAnswer(c, id, { ...r, raw: r.raw });
  const out = render(r);
  return c.json(out.body, out.status);
};

/**
 * A handshake-era call whose client accepts SSE: plain JSON unless a notification for it arrives
 * before its result; then an SSE stream of those notifications and, last, the result.
 */
const answerLegacyCall = async (
  c: Exchange,
  d: McpHttpDeps,
  x: CallContext,
  req: RpcRequest,
  render: Render,
  release: () => void,
): Promise<Replied> => {
  const session = x.holder;
  const meta = req.params?._meta as Record<string, unknown> | undefined;
  const wantsLogs = session !== undefined || meta?.['io.modelcontextprotocol/logLevel'] !== undefined;
  const s = d.calls.streams.start(x.lane, progressTokenOf(meta), session !== undefined, wantsLogs, session);
  // The stream learns which server the call went to: only that server's requests may reach it.
  const routed = (server: string): void => {
    s.server = server;
  };
  const done = dispatchLegacy(d, { ...x, routed }, withCallToken(req, s)).finally(release);
  const first = await Promise.race([done, s.first.then(() => undefined)]);
  if (first) {
    d.calls.streams.end(s);
    return jsonAnswer(c, req.id, first, render);
  }
  return streamSse(c, async (stream) => {
    let result: Dispatched | undefined;
    void done.then((r) => {
      result = r;
      s.wake();
    });
    try {
      await pumpSse(stream, {
        queue: s.queue,
        arm: (w) => {
          s.wake = w;
          if (s.queue.length > 0 || result) w();
        },
        after: () => (result ? render(parsedResult(result)).body : undefined),
      });
    } finally {
      d.calls.streams.end(s);
    }
  });
};

/**
 * Dispatches and answers. A call whose client accepts SSE answers as plain JSON unless a
 * notification for it (progress, a log line) arrives before its result: then the response turns
 * into an SSE stream carrying those notifications and, last, the result. `d` lives for the
 * gateway; `x` is this request's context (its session in `x.holder`, none in 2026-07-28).
 */
export const answer = async (c: Exchange, d: McpHttpDeps, x: CancellableCall, req: RpcRequest, render: Render): Promise<Replied> => {
  // Checked here, before a call stream takes the lane's progress token (dispatch checks the rest).
  const problem = metaProblem(req.params?._meta);
  if (problem) {
    const out = render({ status: 400, error: { code: ERR.invalidParams, message: `Invalid params: ${problem}` } });
    return c.json(out.body, out.status);
  }
  // A session may not reuse the id of its call in flight (the spec: ids are unique in a session):
  // a cancellation naming it would reach the wrong call (attack round 9, F4).
  if (x.holder !== undefined && d.calls.inUse(x.lane, x.holder, req.id as RequestId)) {
    const message = 'Invalid Request: the id of this request is in use by a call of this session still in flight; use a new id';
    const out = render({ status: 400, error: { code: ERR.invalidRequest, message } });
    return c.json(out.body, out.status);
  }
  const release = track(c, d, x);
  if (x.holder === undefined && CALL_METHODS.has(req.method)) {
    // Cancellable by its id until its answer is out: a JSON one, an input round, or a stream that
    // went on after its first progress (let go at that point, a cancellation found no call).
    whenClosed(c.outgoing, release);
    return answerModern(c, d, x, req, render);
  }
  const accepts = (c.req.header('accept') ?? '').includes('text/event-stream');
  if (CALL_METHODS.has(req.method) && accepts) return answerLegacyCall(c, d, x, req, render, release);
  return jsonAnswer(c, req.id, await dispatchLegacy(d, x, req).finally(release), render);
};
