import {
  classifyInboundRequest,
  LATEST_PROTOCOL_VERSION,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { isLanegateError } from '../errors.js';
import { ERR, type RpcRequest } from '../rpc/jsonrpc.js';
import { isListMethod } from '../host/surface.js';
import { type Dispatched, dispatch, type DispatchDeps, FRONT_CAPABILITIES } from './dispatch.js';
import type { CallStream, CallStreams } from './call-streams.js';
import type { Mrtr } from './mrtr.js';
import type { ClientRequests } from './client-requests.js';
import { checkParamHeaders, checkRevision, checkStandardHeaders, REMOVED_IN_MODERN, type Rejection } from './modern-checks.js';
import type { LaneAuth } from './auth.js';
import type { ListenFilter } from './sessions.js';
import type { Sessions } from './sessions.js';

export const MODERN_VERSION = '2026-07-28';
const SESSION_HEADER = 'mcp-session-id';

export interface McpHttpDeps extends DispatchDeps {
  streams: CallStreams;
  mrtr: Mrtr;
  inflight: Map<string, AbortController>;
  clientRequests: ClientRequests;
  auth: LaneAuth;
  sessions: Sessions;
  maxBodyBytes: number;
  realm: string;
  onRefused: (code: string) => void;
}

const rpcError = (
  c: Context,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
  headers: Record<string, string> = {},
): Response => c.json({ jsonrpc: '2.0', id, error: { code, message } }, status as 400, headers);

const negotiate = (requested: unknown): string =>
  typeof requested === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;

/** Results of the stateless era carry resultType, and cacheable ones ttlMs + cacheScope. */
const modernResult = (method: string, result: Record<string, unknown>, serverInfo: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = { resultType: 'complete', ...result };
  if (isListMethod(method) || method === 'server/discover' || method === 'resources/read') {
    out.ttlMs = typeof result.ttlMs === 'number' ? result.ttlMs : 0;
    out.cacheScope = 'private';
  }
  const meta = (out._meta as Record<string, unknown> | undefined) ?? {};
  out._meta = { ...meta, [SERVER_INFO_META_KEY]: serverInfo };
  return out;
};

/** Authenticates; returns the lane or an error response. Nothing unauthenticated goes further. */
const authenticate = async (c: Context, d: McpHttpDeps): Promise<string | Response> => {
  try {
    return await d.auth.authenticate(c.req.header('authorization'));
  } catch (e) {
    const code = isLanegateError(e) ? e.code : 'auth_invalid';
    d.onRefused(code);
    const challenge =
      code === 'auth_missing'
        ? `Bearer realm="${d.realm}"`
        : `Bearer realm="${d.realm}", error="invalid_token", error_description="${isLanegateError(e) ? e.detail.replace(/"/g, "'") : 'invalid token'}"`;
    return rpcError(c, 401, ERR.invalidRequest, 'Unauthorized: a valid lane token is required', null, { 'WWW-Authenticate': challenge });
  }
};

const rpcErrorData = (c: Context, r: Rejection, id: unknown): Response =>
  c.json(
    { jsonrpc: '2.0', id: id ?? null, error: { code: r.code, message: r.message, ...(r.data !== undefined ? { data: r.data } : {}) } },
    r.status as 400,
  );

/** Mcp-Param-* headers are checked against the schema of the tool as this lane sees it. */
const checkToolParamHeaders = async (c: Context, d: McpHttpDeps, lane: string, req: RpcRequest): Promise<Rejection | undefined> => {
  const params = req.params ?? {};
  const bare = d.policy().lanes[lane]?.naming === 'bare';
  const listing = await d.catalog.list(lane, 'tools/list').catch(() => undefined);
  const prefix = bare ? d.policy().servers[d.policy().lanes[lane]?.servers[0] ?? '']?.prefix : undefined;
  const name = prefix ? `${prefix}_${String(params.name ?? '')}` : String(params.name ?? '');
  const tool = listing?.items.find((t) => t.name === name);
  if (!tool) return undefined;
  return checkParamHeaders(tool.inputSchema, (params.arguments ?? {}) as Record<string, unknown>, (h) => c.req.header(h));
};

const withTraceOf = (c: Context, d: McpHttpDeps): McpHttpDeps => {
  const traceparent = c.req.header('traceparent');
  if (!traceparent) return d;
  const tracestate = c.req.header('tracestate');
  return { ...d, trace: { traceparent, ...(tracestate ? { tracestate } : {}) } };
};

export const handlePost = async (c: Context, d: McpHttpDeps): Promise<Response> => {
  const lane = await authenticate(c, d);
  if (lane instanceof Response) return lane;
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > d.maxBodyBytes) return rpcError(c, 413, ERR.invalidRequest, `request body over ${d.maxBodyBytes} bytes`);
  const text = await c.req.text();
  if (Buffer.byteLength(text) > d.maxBodyBytes) return rpcError(c, 413, ERR.invalidRequest, `request body over ${d.maxBodyBytes} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return rpcError(c, 400, ERR.parse, 'Parse error: body is not JSON');
  }
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    body,
    protocolVersionHeader: c.req.header('mcp-protocol-version'),
    mcpMethodHeader: c.req.header('mcp-method'),
    mcpNameHeader: c.req.header('mcp-name'),
  });
  const id = (body as { id?: unknown } | null)?.id ?? null;
  if (outcome.kind === 'reject') return rpcError(c, outcome.httpStatus, outcome.code, outcome.message, id);

  if (outcome.kind === 'modern') {
    const bad = checkRevision(c.req.header('mcp-protocol-version') ?? outcome.classification.revision);
    if (bad) return rpcErrorData(c, bad, id);
    if (outcome.messageKind === 'notification') {
      cancelFrom(d, lane, undefined, outcome.message as unknown as { method: string; params?: Record<string, unknown> });
      return c.body(null, 202);
    }
    const req = outcome.message as unknown as RpcRequest;
    const serverInfo = d.serverInfo;
    if (req.method === 'subscriptions/listen') return listen(c, d, lane, req, serverInfo);
    if (REMOVED_IN_MODERN.has(req.method))
      return rpcErrorData(
        c,
        { status: 404, code: ERR.methodNotFound, message: `Method not found: ${req.method} is not part of revision ${MODERN_VERSION}` },
        req.id,
      );
    const headerProblem = checkStandardHeaders(req.method, req.params ?? {}, {
      method: c.req.header('mcp-method'),
      name: c.req.header('mcp-name'),
    });
    if (headerProblem) return rpcErrorData(c, headerProblem, req.id);
    if (req.method === 'tools/call') {
      const paramProblem = await checkToolParamHeaders(c, d, lane, req);
      if (paramProblem) return rpcErrorData(c, paramProblem, req.id);
    }
    if (req.method === 'server/discover') {
      return c.json({
        jsonrpc: '2.0',
        id: req.id,
        result: modernResult(
          req.method,
          { supportedVersions: [MODERN_VERSION], capabilities: FRONT_CAPABILITIES, serverInfo, instructions: d.instructions },
          serverInfo,
        ),
      });
    }
    return answer(c, d, lane, req, undefined, (r) =>
      r.error
        ? { status: r.error.code === ERR.methodNotFound ? 404 : r.status, body: { jsonrpc: '2.0', id: req.id, error: r.error } }
        : { status: r.status, body: { jsonrpc: '2.0', id: req.id, result: modernResult(req.method, r.result ?? {}, serverInfo) } },
    );
  }

  // Handshake era.
  if (Array.isArray(body)) return rpcError(c, 400, ERR.invalidRequest, 'JSON-RPC batches are not supported');
  const msg = body as RpcRequest;
  const sid = c.req.header(SESSION_HEADER);
  if (outcome.reason === 'initialize') {
    const params = msg.params ?? {};
    const version = negotiate(params.protocolVersion);
    const session = d.sessions.create(lane, version);
    return c.json(
      {
        jsonrpc: '2.0',
        id: msg.id,
        result: { protocolVersion: version, capabilities: FRONT_CAPABILITIES, serverInfo: d.serverInfo, instructions: d.instructions },
      },
      200,
      { 'Mcp-Session-Id': session.id },
    );
  }
  if (!sid) return rpcError(c, 400, ERR.invalidRequest, 'Bad Request: Mcp-Session-Id header is required', id);
  const session = d.sessions.get(sid, lane);
  if (!session) return rpcError(c, 404, ERR.invalidRequest, 'Session not found', id);
  if (outcome.reason === 'notification') cancelFrom(d, lane, sid, body as { method: string; params?: Record<string, unknown> });
  if (outcome.reason === 'response') d.clientRequests.answer(lane, body as { id?: unknown });
  if (outcome.reason === 'notification' || outcome.reason === 'response') return c.body(null, 202);
  return answer(c, d, lane, msg, sid, (r) => ({
    status: r.status,
    body: r.error ? { jsonrpc: '2.0', id: msg.id, error: r.error } : { jsonrpc: '2.0', id: msg.id, result: r.result ?? {} },
  }));
};

const STREAMABLE = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete']);

/**
 * Dispatches and answers. A call whose client accepts SSE answers as plain JSON unless a
 * notification for it (progress, a log line) arrives before its result: then the response turns
 * into an SSE stream carrying those notifications and, last, the result.
 */
/**
 * `subscriptions/listen` (2026-07-28): an SSE stream that first acknowledges the honored subset of
 * the requested filter, then carries the lane's own list changes, each tagged with the
 * subscription id. With nothing honored it completes at once.
 */
const listen = (c: Context, d: McpHttpDeps, lane: string, req: RpcRequest, serverInfo: Record<string, unknown>): Response => {
  const requested = (req.params?.notifications ?? undefined) as Record<string, unknown> | undefined;
  if (!requested || typeof requested !== 'object') {
    return c.json({
      jsonrpc: '2.0',
      id: req.id,
      error: { code: ERR.invalidParams, message: "Invalid params: 'notifications' is required" },
    });
  }
  const honored: ListenFilter = {};
  if (requested.toolsListChanged === true) honored.toolsListChanged = true;
  if (requested.promptsListChanged === true) honored.promptsListChanged = true;
  if (requested.resourcesListChanged === true) honored.resourcesListChanged = true;
  const tag = (params: Record<string, unknown> = {}): Record<string, unknown> => ({
    ...params,
    _meta: { ...((params._meta as Record<string, unknown> | undefined) ?? {}), 'io.modelcontextprotocol/subscriptionId': req.id },
  });
  return streamSSE(c, async (stream) => {
    await stream.writeSSE({
      event: 'message',
      data: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: tag({ notifications: honored }) }),
    });
    if (Object.keys(honored).length === 0) {
      await stream.writeSSE({
        event: 'message',
        data: JSON.stringify({
          jsonrpc: '2.0',
          id: req.id,
          result: { resultType: 'complete', _meta: tag({ 'io.modelcontextprotocol/serverInfo': serverInfo })._meta },
        }),
      });
      return;
    }
    const queue: Record<string, unknown>[] = [];
    let wakeUp: () => void = () => undefined;
    const stop = d.sessions.listen(lane, honored, (m) => {
      queue.push({ jsonrpc: '2.0', method: m.method, params: tag((m.params as Record<string, unknown> | undefined) ?? {}) });
      wakeUp();
    });
    try {
      for (let guard = 0; guard < 10_000_000 && !stream.aborted; guard += 1) {
        while (queue.length > 0) await stream.writeSSE({ event: 'message', data: JSON.stringify(queue.shift()) });
        const timedOut = await new Promise<boolean>((r) => {
          wakeUp = () => r(false);
          setTimeout(() => r(true), 25_000).unref();
        });
        if (timedOut && queue.length === 0) await stream.write(': keep-alive\n\n');
      }
    } finally {
      stop();
    }
  });
};

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
  if (params.requestState !== undefined || params.inputResponses !== undefined) {
    const t = d.mrtr.take(params.requestState, lane, callKey);
    if (!t.ok) return rpcErrorData(c, { status: 400, code: ERR.invalidParams, message: `Invalid params: ${t.reason}` }, req.id);
    s = t.call.stream;
    done = t.call.done;
    s.caps = caps;
    d.streams.reopen(s);
    const responses = (params.inputResponses ?? {}) as Record<string, Record<string, unknown>>;
    for (const [k, id] of t.call.pending) {
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
    done = dispatch(d, lane, req);
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
    const requestState = d.mrtr.park({ lane, callKey, done, stream: s, pending }, () => undefined);
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

const inflightKey = (lane: string, session: string | undefined, id: unknown): string =>
  `${lane}\u0000${session ?? ''}\u0000${JSON.stringify(id)}`;

/** notifications/cancelled from a lane aborts that lane's call (in its own session) and the upstream work. */
const cancelFrom = (
  d: McpHttpDeps,
  lane: string,
  session: string | undefined,
  n: { method: string; params?: Record<string, unknown> },
): void => {
  if (n.method !== 'notifications/cancelled') return;
  d.inflight.get(inflightKey(lane, session, n.params?.requestId))?.abort();
};

const answer = async (
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
  const d: McpHttpDeps = { ...withTraceOf(c, d0), signal: ac.signal };
  if (session === undefined && STREAMABLE.has(req.method)) {
    return answerModern(c, d, lane, req, render).finally(() => d0.inflight.delete(key));
  }
  const accepts = (c.req.header('accept') ?? '').includes('text/event-stream');
  if (!STREAMABLE.has(req.method) || !accepts) {
    const out = render(await dispatch(d, lane, req).finally(() => d0.inflight.delete(key)));
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
  const done = dispatch(d, lane, req).finally(() => d0.inflight.delete(key));
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

export const handleGet = async (c: Context, d: McpHttpDeps): Promise<Response> => {
  const lane = await authenticate(c, d);
  if (lane instanceof Response) return lane;
  const sid = c.req.header(SESSION_HEADER);
  if (!sid) return rpcError(c, 405, -32000, 'Method not allowed: GET needs a legacy session', null, { Allow: 'POST' });
  const session = d.sessions.get(sid, lane);
  if (!session) return rpcError(c, 404, ERR.invalidRequest, 'Session not found');
  return streamSSE(c, async (stream) => {
    let open = true;
    let wake: () => void = () => undefined;
    const queue: Record<string, unknown>[] = [];
    const sink = {
      send: (m: Record<string, unknown>) => {
        queue.push(m);
        wake();
      },
      close: () => {
        open = false;
        wake();
      },
    };
    session.streams.add(sink);
    stream.onAbort(() => sink.close());
    while (open && !stream.aborted) {
      while (queue.length > 0) {
        const m = queue.shift();
        await stream.writeSSE({ event: 'message', data: JSON.stringify(m) });
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 25_000).unref();
      });
      if (queue.length === 0 && open) await stream.write(': keep-alive\n\n');
    }
    session.streams.delete(sink);
  });
};

export const handleDelete = async (c: Context, d: McpHttpDeps): Promise<Response> => {
  const lane = await authenticate(c, d);
  if (lane instanceof Response) return lane;
  const sid = c.req.header(SESSION_HEADER);
  if (!sid) return rpcError(c, 405, -32000, 'Method not allowed: DELETE needs a legacy session', null, { Allow: 'POST' });
  if (!d.sessions.get(sid, lane)) return rpcError(c, 404, ERR.invalidRequest, 'Session not found');
  d.sessions.end(sid);
  return c.body(null, 200);
};
