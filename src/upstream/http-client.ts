import { LanegateError } from '../errors.js';
import type { ServerConfig } from '../policy/model.js';
import { RpcEndpoint } from '../rpc/endpoint.js';
import { ERR, type Id, RpcFailure, type RpcMessage } from '../rpc/jsonrpc.js';
import { resultTooLarge } from '../rpc/too-large.js';
import {
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  UPSTREAM_PROTOCOL_VERSION,
  type UpstreamConn,
  type UpstreamEvents,
  type UpstreamInit,
} from './conn.js';
import { expandLane } from '../policy/placeholders.js';
import { messagesOf, TooLarge } from './http-body.js';

/** The longest a POST may take; each request's own timeout is kept by the protocol layer. */
const REQUEST_LIMIT_MS = 15 * 60_000;

const SECRET_REF = /\{secret:([A-Z][A-Z0-9_]*)\}/g;

/** Header values with {secret:NAME} filled from the domain's secrets (read by the host only). */
export const expandHeaders = (
  headers: Record<string, string>,
  secrets: ReadonlyMap<string, string>,
  lane?: string,
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, expandLane(v, lane).replace(SECRET_REF, (_w, n: string) => secrets.get(n) ?? '')]),
  );

/** One backend session: where it is, the headers every POST carries, the session id the backend assigned. */
interface Backend {
  readonly server: string;
  readonly url: string;
  readonly base: Record<string, string>;
  /** gateway.limits.resultBytes: an answer past it is refused, not read. */
  readonly resultBytes: number;
  readonly ev: UpstreamEvents;
  sessionId: string | undefined;
  closed: boolean;
}

/** One message as a POST with the session's headers; a backend out of reach (or too slow) is an RpcFailure. */
const post = async (b: Backend, body: RpcMessage, timeoutMs: number, cancel?: AbortSignal): Promise<Response> => {
  const headers: Record<string, string> = {
    ...b.base,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': UPSTREAM_PROTOCOL_VERSION,
  };
  if (b.sessionId) headers['mcp-session-id'] = b.sessionId;
  try {
    const limit = AbortSignal.timeout(timeoutMs);
    return await fetch(b.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: cancel ? AbortSignal.any([limit, cancel]) : limit,
    });
  } catch (e) {
    const timedOut = e instanceof Error && e.name === 'TimeoutError';
    throw new RpcFailure({
      code: timedOut ? ERR.timeout : ERR.unavailable,
      message: timedOut ? 'timed out' : 'HTTP upstream unreachable',
    });
  }
};

/** One message out as a POST, every message of its answer back in; a request left unanswered fails. */
const exchange = async (b: Backend, endpoint: RpcEndpoint, msg: RpcMessage, id: Id | undefined, cancel?: AbortSignal): Promise<void> => {
  const res = await post(b, msg, id === undefined ? 10_000 : REQUEST_LIMIT_MS, cancel);
  if (res.status === 404 && b.sessionId) {
    b.closed = true;
    endpoint.close('backend session expired');
    b.ev.onExit('backend session expired');
    throw new RpcFailure({ code: ERR.unavailable, message: 'backend session expired' });
  }
  if (!res.ok && res.status !== 202) throw new RpcFailure({ code: ERR.unavailable, message: `HTTP upstream answered ${res.status}` });
  const sid = res.headers.get('mcp-session-id');
  if (sid) b.sessionId = sid;
  await messagesOf(res, (m) => endpoint.receive(m), b.resultBytes).catch((e: unknown) => {
    if (!(e instanceof TooLarge) || id === undefined) return;
    b.ev.onLimit?.({ detail: 'answer over gateway.limits.resultBytes', bytes: e.bytes, limit: b.resultBytes });
    endpoint.fail(id, resultTooLarge(b.server, e.bytes, b.resultBytes));
  });
  if (id !== undefined && endpoint.isPending(id)) throw new RpcFailure({ code: ERR.internal, message: 'HTTP upstream sent no response' });
};

/**
 * The protocol layer (correlation, timeouts, cancellation, the backend's own requests) is the one
 * LinePeer uses; here each message goes out as a POST and every message of its answer (a JSON body
 * or an SSE stream) comes back in through receive(). The POST of each request still waiting is
 * kept, so an abandoned request's exchange is dropped.
 */
const endpointOver = (b: Backend): RpcEndpoint => {
  const exchanges = new Map<Id, AbortController>();
  const endpoint: RpcEndpoint = new RpcEndpoint(
    async (msg) => {
      const id = 'id' in msg && 'method' in msg ? (msg.id as Id) : undefined;
      const ac = id === undefined ? undefined : new AbortController();
      if (id !== undefined && ac) exchanges.set(id, ac);
      try {
        await exchange(b, endpoint, msg, id, ac?.signal);
      } finally {
        if (id !== undefined) exchanges.delete(id);
      }
    },
    {
      onNotification: (n) => b.ev.onNotification(n),
      onRequest: (r) => b.ev.onServerRequest(r),
      onAbandon: (id) => exchanges.get(id)?.abort(),
      endReason: 'HTTP upstream connection closed',
    },
  );
  return endpoint;
};

/** The handshake-era start: `initialize`, then `notifications/initialized` (its failure ignored). */
const initializeBackend = async (b: Backend, endpoint: RpcEndpoint): Promise<UpstreamInit> => {
  const r = await endpoint
    .request(
      'initialize',
      { protocolVersion: UPSTREAM_PROTOCOL_VERSION, capabilities: CLIENT_CAPABILITIES, clientInfo: CLIENT_INFO },
      20_000,
    )
    .catch((e: unknown) => {
      throw new LanegateError('upstream_unavailable', `initialize failed: ${e instanceof Error ? e.message : 'unknown'}`);
    });
  await post(b, { jsonrpc: '2.0', method: 'notifications/initialized' }, 10_000).catch(() => undefined);
  return {
    protocolVersion: String(r.protocolVersion ?? ''),
    capabilities: (r.capabilities as Record<string, unknown>) ?? {},
    serverInfo: (r.serverInfo as Record<string, unknown>) ?? {},
    ...(typeof r.instructions === 'string' ? { instructions: r.instructions } : {}),
  };
};

/** Ends the link once: the protocol layer closes and the backend is asked to drop its session. */
const stopBackend = async (b: Backend, endpoint: RpcEndpoint): Promise<void> => {
  if (b.closed) return;
  b.closed = true;
  endpoint.close('stopped');
  if (b.sessionId) {
    await fetch(b.url, {
      method: 'DELETE',
      headers: { ...b.base, 'mcp-session-id': b.sessionId },
      signal: AbortSignal.timeout(3000),
    }).catch(() => undefined);
  }
  b.ev.onExit('stopped');
};

/**
 * An HTTP (Streamable HTTP, handshake era) upstream as seen from a host. Each request is one
 * POST; the session id the backend assigns is kept per connection, so "shared" or "dedicated"
 * is a choice about the backend session, exactly as for a child process.
 */
export const connectHttp = async (
  server: ServerConfig,
  lane: string | undefined,
  secrets: ReadonlyMap<string, string>,
  ev: UpstreamEvents,
  /** gateway.limits.resultBytes: an answer past it is refused, not read. */
  resultBytes = 32 * 1024 * 1024,
): Promise<UpstreamConn> => {
  if (server.transport.kind !== 'http') throw new LanegateError('internal', 'not an http server');
  const b: Backend = {
    server: server.name,
    url: expandLane(server.transport.url, lane),
    base: expandHeaders(server.transport.headers, secrets, lane),
    resultBytes,
    ev,
    sessionId: undefined,
    closed: false,
  };
  const endpoint = endpointOver(b);
  const request = endpoint.request.bind(endpoint);
  const init = await initializeBackend(b, endpoint);
  return {
    pid: undefined,
    init,
    request,
    notify: (method, params) => endpoint.notify(method, params),
    stop: () => stopBackend(b, endpoint),
  };
};
