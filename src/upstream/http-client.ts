import { LanegateError } from '../errors.js';
import type { ServerConfig } from '../policy/model.js';
import { RpcEndpoint } from '../rpc/endpoint.js';
import { ERR, type Id, RpcFailure, type RpcMessage } from '../rpc/jsonrpc.js';
import { resultTooLarge } from '../rpc/too-large.js';
import { CLIENT_CAPABILITIES, CLIENT_INFO, UPSTREAM_PROTOCOL_VERSION, type UpstreamConn, type UpstreamEvents } from './conn.js';
import { expandLane } from '../policy/placeholders.js';

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

/** An answer past gateway.limits.resultBytes: reading stopped at `bytes`. */
class TooLarge extends Error {
  constructor(readonly bytes: number) {
    super('answer too large');
  }
}

/** A JSON body read up to `limit` bytes, never further. */
const boundedText = async (res: Response, limit: number): Promise<string> => {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new TooLarge(declared);
  }
  if (!res.body) return '';
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let n = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    n += chunk.byteLength;
    if (n > limit) throw new TooLarge(n);
    parts.push(decoder.decode(chunk, { stream: true }));
  }
  return parts.join('') + decoder.decode();
};

/**
 * Every JSON-RPC message of a POST's answer, in order: one JSON body, or the events of an SSE
 * stream. A body or an event past `limit` bytes is not read further (TooLarge).
 */
const messagesOf = async (res: Response, each: (m: RpcMessage) => void, limit: number): Promise<void> => {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    each(JSON.parse(await boundedText(res, limit)) as RpcMessage);
    return;
  }
  if (!type.includes('text/event-stream') || !res.body) return;
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    if (buf.length > limit) throw new TooLarge(buf.length);
    for (let sep = buf.indexOf('\n\n'); sep >= 0; sep = buf.indexOf('\n\n')) {
      const data = buf
        .slice(0, sep)
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      buf = buf.slice(sep + 2);
      if (data) each(JSON.parse(data) as RpcMessage);
    }
  }
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
  const url = expandLane(server.transport.url, lane);
  const base = expandHeaders(server.transport.headers, secrets, lane);
  let sessionId: string | undefined;
  let closed = false;

  /** The POST of each request still waiting, so an abandoned request's exchange is dropped. */
  const exchanges = new Map<Id, AbortController>();

  const post = async (body: RpcMessage, timeoutMs: number, cancel?: AbortSignal): Promise<Response> => {
    const headers: Record<string, string> = {
      ...base,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': UPSTREAM_PROTOCOL_VERSION,
    };
    if (sessionId) headers['mcp-session-id'] = sessionId;
    try {
      const limit = AbortSignal.timeout(timeoutMs);
      return await fetch(url, {
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

  // The protocol layer (correlation, timeouts, cancellation, the backend's own requests) is the
  // one LinePeer uses; here each message goes out as a POST and every message of its answer
  // (a JSON body or an SSE stream) comes back in through receive().
  const endpoint: RpcEndpoint = new RpcEndpoint(
    async (msg) => {
      const id = 'id' in msg && 'method' in msg ? (msg.id as Id) : undefined;
      const ac = id === undefined ? undefined : new AbortController();
      if (id !== undefined && ac) exchanges.set(id, ac);
      try {
        await exchange(msg, id, ac?.signal);
      } finally {
        if (id !== undefined) exchanges.delete(id);
      }
    },
    {
      onNotification: (n) => ev.onNotification(n),
      onRequest: (r) => ev.onServerRequest(r),
      onAbandon: (id) => exchanges.get(id)?.abort(),
      endReason: 'HTTP upstream connection closed',
    },
  );

  /** One message out as a POST, every message of its answer back in; a request left unanswered fails. */
  const exchange = async (msg: RpcMessage, id: Id | undefined, cancel: AbortSignal | undefined): Promise<void> => {
    const res = await post(msg, id === undefined ? 10_000 : REQUEST_LIMIT_MS, cancel);
    if (res.status === 404 && sessionId) {
      closed = true;
      endpoint.close('backend session expired');
      ev.onExit('backend session expired');
      throw new RpcFailure({ code: ERR.unavailable, message: 'backend session expired' });
    }
    if (!res.ok && res.status !== 202) throw new RpcFailure({ code: ERR.unavailable, message: `HTTP upstream answered ${res.status}` });
    const sid = res.headers.get('mcp-session-id');
    if (sid) sessionId = sid;
    await messagesOf(res, (m) => endpoint.receive(m), resultBytes).catch((e: unknown) => {
      if (!(e instanceof TooLarge) || id === undefined) return;
      ev.onLimit?.({ detail: 'answer over gateway.limits.resultBytes', bytes: e.bytes, limit: resultBytes });
      endpoint.fail(id, resultTooLarge(server.name, e.bytes, resultBytes));
    });
    if (id !== undefined && endpoint.isPending(id)) throw new RpcFailure({ code: ERR.internal, message: 'HTTP upstream sent no response' });
  };

  const request = endpoint.request.bind(endpoint);

  const r = await request(
    'initialize',
    { protocolVersion: UPSTREAM_PROTOCOL_VERSION, capabilities: CLIENT_CAPABILITIES, clientInfo: CLIENT_INFO },
    20_000,
  ).catch((e: unknown) => {
    throw new LanegateError('upstream_unavailable', `initialize failed: ${e instanceof Error ? e.message : 'unknown'}`);
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, 10_000).catch(() => undefined);

  return {
    pid: undefined,
    init: {
      protocolVersion: String(r.protocolVersion ?? ''),
      capabilities: (r.capabilities as Record<string, unknown>) ?? {},
      serverInfo: (r.serverInfo as Record<string, unknown>) ?? {},
      ...(typeof r.instructions === 'string' ? { instructions: r.instructions } : {}),
    },
    request,
    notify: (method, params) => endpoint.notify(method, params),
    stop: async () => {
      if (closed) return;
      closed = true;
      endpoint.close('stopped');
      if (sessionId) {
        await fetch(url, { method: 'DELETE', headers: { ...base, 'mcp-session-id': sessionId }, signal: AbortSignal.timeout(3000) }).catch(
          () => undefined,
        );
      }
      ev.onExit('stopped');
    },
  };
};
