import { LanegateError } from '../errors.js';
import type { ServerConfig } from '../policy/model.js';
import { ERR, RpcFailure, type RpcMessage, type RpcNotification, type RpcResponse } from '../rpc/jsonrpc.js';
import { CLIENT_CAPABILITIES, CLIENT_INFO, UPSTREAM_PROTOCOL_VERSION, type UpstreamConn, type UpstreamEvents } from './conn.js';

const SECRET_REF = /\{secret:([A-Z][A-Z0-9_]*)\}/g;

/** Header values with {secret:NAME} filled from the domain's secrets (read by the host only). */
export const expandHeaders = (
  headers: Record<string, string>,
  secrets: ReadonlyMap<string, string>,
  lane?: string,
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [
      k,
      (lane ? v.replaceAll('{lane}', lane) : v).replace(SECRET_REF, (_w, n: string) => secrets.get(n) ?? ''),
    ]),
  );

/** Reads one JSON-RPC response (and any notifications before it) from a JSON or SSE body. */
const readResponse = async (res: Response, onNote: (n: RpcNotification) => void): Promise<RpcResponse | undefined> => {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) return (await res.json()) as RpcResponse;
  if (!type.includes('text/event-stream') || !res.body) return undefined;
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let sep = buf.indexOf('\n\n');
    while (sep >= 0) {
      const event = buf.slice(0, sep);
      buf = buf.slice(sep + 2);
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) {
        const msg = JSON.parse(data) as RpcMessage;
        if ('method' in msg && !('id' in msg)) onNote(msg as RpcNotification);
        else if (!('method' in msg)) return msg as RpcResponse;
      }
      sep = buf.indexOf('\n\n');
    }
  }
  return undefined;
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
): Promise<UpstreamConn> => {
  if (server.transport.kind !== 'http') throw new LanegateError('internal', 'not an http server');
  const url = lane ? server.transport.url.replaceAll('{lane}', lane) : server.transport.url;
  const base = expandHeaders(server.transport.headers, secrets, lane);
  let sessionId: string | undefined;
  let nextId = 1;
  let closed = false;

  const post = async (body: RpcMessage, timeoutMs: number, signal?: AbortSignal): Promise<Response> => {
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
        signal: signal ? AbortSignal.any([limit, signal]) : limit,
      });
    } catch (e) {
      if (signal?.aborted) throw new RpcFailure({ code: ERR.cancelled, message: 'request cancelled' });
      const timedOut = e instanceof Error && e.name === 'TimeoutError';
      throw new RpcFailure({
        code: timedOut ? ERR.timeout : ERR.unavailable,
        message: timedOut ? 'timed out' : 'HTTP upstream unreachable',
      });
    }
  };

  const request = async (
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> => {
    if (closed) throw new RpcFailure({ code: ERR.unavailable, message: 'connection closed' });
    const id = nextId++;
    // Cancellation propagates: the request is aborted and the backend is told to stop the work.
    signal?.addEventListener(
      'abort',
      () => void post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }, 5_000).catch(() => undefined),
      { once: true },
    );
    const res = await post({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, timeoutMs, signal);
    if (res.status === 404 && sessionId) {
      closed = true;
      ev.onExit('backend session expired');
      throw new RpcFailure({ code: ERR.unavailable, message: 'backend session expired' });
    }
    if (!res.ok) throw new RpcFailure({ code: ERR.unavailable, message: `HTTP upstream answered ${res.status}` });
    const sid = res.headers.get('mcp-session-id');
    if (sid) sessionId = sid;
    const msg = await readResponse(res, ev.onNotification);
    if (!msg) throw new RpcFailure({ code: ERR.internal, message: 'HTTP upstream sent no response' });
    if (msg.error) throw new RpcFailure(msg.error);
    return msg.result ?? {};
  };

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
    notify: (method, params) => void post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }, 10_000).catch(() => undefined),
    stop: async () => {
      if (closed) return;
      closed = true;
      if (sessionId) {
        await fetch(url, { method: 'DELETE', headers: { ...base, 'mcp-session-id': sessionId }, signal: AbortSignal.timeout(3000) }).catch(
          () => undefined,
        );
      }
      ev.onExit('stopped');
    },
  };
};
