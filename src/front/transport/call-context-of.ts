import { paramHeadersOf } from '../../link/param-headers.js';
import type { RpcRequest } from '../../rpc/jsonrpc.js';
import type { CancellableCall, RequestId } from '../mcp/call-context.js';
import type { Exchange } from './exchange.js';
import type { Post } from './post-context.js';

/** The request's headers as node parsed them (Hono's c.req.header() would build a whole Request for this). */
const nodeHeaders = (c: Exchange): Readonly<Record<string, string | string[] | undefined>> => c.incoming?.headers ?? {};

/**
 * The context of one POST that dispatches a request, built once, after the request is classified
 * and before it is answered: its lane, era and holder (the session, or none for a 2026-07-28
 * request), its id, the controller the lane's cancellation aborts, the W3C trace context, the body
 * as it arrived, a 2026-07-28 tools/call's Mcp-Param-* headers and the token's id.
 */
export const callContextOf = (p: Post, req: RpcRequest, session: string | undefined): CancellableCall => {
  const c = p.c;
  const abort = new AbortController();
  const traceparent = c.req.header('traceparent');
  const tracestate = traceparent ? c.req.header('tracestate') : undefined;
  return {
    lane: p.lane,
    era: session === undefined ? 'modern' : 'legacy',
    holder: session,
    id: (req.id ?? null) as RequestId,
    abort,
    signal: abort.signal,
    trace: traceparent ? { traceparent, ...(tracestate ? { tracestate } : {}) } : undefined,
    bodyText: p.sent,
    bodyParams: req.params,
    paramHeaders: session === undefined && req.method === 'tools/call' ? paramHeadersOf(nodeHeaders(c)) : undefined,
    tokenId: p.claims.jti,
    // A call's result stays the host's text: a handshake-era lane gets it as it is, a 2026-07-28
    // lane gets it spliced into the revision's result shape (modern-result.ts).
    rawResults: true,
    routed: undefined,
  };
};
