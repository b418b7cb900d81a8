import { paramHeadersOf } from '../../link/param-headers.js';
import { type Exchange, type Replied, whenClosed } from './exchange.js';
import { streamSse } from './sse-stream.js';
import { pumpSse } from './sse-pump.js';
import { answerModern } from './answer-modern.js';
import { reachLane } from '../mcp/client-requests.js';
import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { withCallToken } from './call-streams.js';
import { CALL_METHODS, type Dispatched, dispatch, parsedResult } from '../mcp/dispatch.js';
import type { RawResult } from '../../rpc/raw.js';
import { type McpHttpDeps, withTraceOf } from './http-deps.js';
import { metaProblem } from '../mcp/param-checks.js';
import { progressTokenOf } from '../mcp/progress-token.js';

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
  c.body(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${r.raw.text}}`, r.status as 200, { 'content-type': 'application/json' });

/** notifications/cancelled from a lane aborts that lane's call (in its own session) and the upstream work. */
const MAX_INPUT_ROUNDS = 8;

/**
 * A handshake-era lane in front of an upstream spoken to in 2026-07-28: the upstream's
 * `input_required` becomes server-to-client requests on the lane's call stream (or GET stream),
 * and the answers go back to the upstream as `inputResponses` with its `requestState`.
 */
const dispatchLegacy = async (d: McpHttpDeps, lane: string, req: RpcRequest): Promise<Dispatched> => {
  let r = readable(await dispatch(d, lane, req));
  for (let round = 0; round < MAX_INPUT_ROUNDS && r.result?.resultType === 'input_required'; round += 1) {
    const inputs = (r.result.inputRequests ?? {}) as Record<string, { method: string; params?: Record<string, unknown> }>;
    const entries = await Promise.all(
      Object.entries(inputs).map(async ([k, v]) => {
        const answer = await d.clientRequests.ask(lane, v.method, v.params ?? {}, (msg) =>
          reachLane(d.streams, d.sessions, lane, msg, false),
        );
        return [k, answer] as const;
      }),
    );
    const state = r.result.requestState;
    r = readable(
      await dispatch(d, lane, {
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
const nodeHeaders = (c: Exchange): Readonly<Record<string, string | string[] | undefined>> => c.incoming?.headers ?? {};

type Render = (r: Dispatched) => { status: number; body: Record<string, unknown> };

/**
 * The call, in flight under its holder until `release`: cancellable by the lane, and (handshake era)
 * aborted when its response closes before it finished. A modern call may outlive its request (MRTR parks it).
 */
const track = (
  c: Exchange,
  d0: McpHttpDeps,
  lane: string,
  session: string | undefined,
  id: unknown,
): { ac: AbortController; release: () => void } => {
  const ac = new AbortController();
  const key = inflightKey(lane, session, id);
  d0.inflight.set(key, ac);
  if (session !== undefined) {
    // The response closing before it finished means the client went away (perhaps already).
    const outgoing = c.outgoing;
    whenClosed(outgoing, () => {
      if (!outgoing.writableFinished) ac.abort();
    });
  }
  return { ac, release: () => d0.inflight.delete(key) };
};

/** What dispatch needs to know of this one request, beside the gateway's services. */
const requestDeps = (
  c: Exchange,
  d0: McpHttpDeps,
  signal: AbortSignal,
  req: RpcRequest,
  session: string | undefined,
  bodyText: string | undefined,
): McpHttpDeps => ({
  ...withTraceOf(c, d0),
  signal,
  era: session === undefined ? 'modern' : 'legacy',
  // A call's result stays the host's text: a handshake-era lane gets it as it is, a 2026-07-28
  // lane gets it spliced into the revision's result shape (modern-result.ts).
  rawResults: true,
  ...(bodyText !== undefined ? { laneBody: { text: bodyText, params: req.params } } : {}),
  ...(session !== undefined ? { holder: session } : {}),
  ...(session === undefined && req.method === 'tools/call' ? { paramHeaders: paramHeadersOf(nodeHeaders(c)) } : {}),
});

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
  lane: string,
  req: RpcRequest,
  session: string | undefined,
  render: Render,
  release: () => void,
): Promise<Replied> => {
  const meta = req.params?._meta as Record<string, unknown> | undefined;
  const wantsLogs = session !== undefined || meta?.['io.modelcontextprotocol/logLevel'] !== undefined;
  const s = d.streams.start(lane, progressTokenOf(meta), session !== undefined, wantsLogs, session);
  const done = dispatchLegacy(d, lane, withCallToken(req, s)).finally(release);
  const first = await Promise.race([done, s.first.then(() => undefined)]);
  if (first) {
    d.streams.end(s);
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
      d.streams.end(s);
    }
  });
};

/**
 * Dispatches and answers. A call whose client accepts SSE answers as plain JSON unless a
 * notification for it (progress, a log line) arrives before its result: then the response turns
 * into an SSE stream carrying those notifications and, last, the result.
 */
export const answer = async (
  c: Exchange,
  d0: McpHttpDeps,
  lane: string,
  req: RpcRequest,
  session: string | undefined,
  render: Render,
  /** The body text `req` was parsed from: untouched params go to the host as this text. */
  bodyText?: string,
): Promise<Replied> => {
  // Checked here, before a call stream takes the lane's progress token (dispatch checks the rest).
  const problem = metaProblem(req.params?._meta);
  if (problem) {
    const out = render({ status: 400, error: { code: ERR.invalidParams, message: `Invalid params: ${problem}` } });
    return c.json(out.body, out.status);
  }
  const { ac, release } = track(c, d0, lane, session, req.id);
  const d = requestDeps(c, d0, ac.signal, req, session, bodyText);
  if (session === undefined && CALL_METHODS.has(req.method)) return answerModern(c, d, lane, req, render).finally(release);
  const accepts = (c.req.header('accept') ?? '').includes('text/event-stream');
  if (CALL_METHODS.has(req.method) && accepts) return answerLegacyCall(c, d, lane, req, session, render, release);
  return jsonAnswer(c, req.id, await dispatchLegacy(d, lane, req).finally(release), render);
};
