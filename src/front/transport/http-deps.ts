import type { Exchange, Replied } from './exchange.js';
import type { DispatchDeps } from '../mcp/dispatch.js';
import type { LaneAuth } from './auth.js';
import type { CallStreams } from './call-streams.js';
import type { ClientRequests } from '../mcp/client-requests.js';
import type { Rejection } from '../../link/param-headers.js';
import type { Mrtr } from '../mcp/mrtr.js';
import type { Sessions } from '../mcp/sessions.js';
import type { LaneLoad } from './lane-load.js';
import type { FairShare } from './fair-share.js';
import type { SendBudget } from './send-budget.js';
import type { ByteTurns } from './byte-turns.js';

/** What the HTTP handlers of /mcp need from the gateway. */
export interface McpHttpDeps extends DispatchDeps {
  streams: CallStreams;
  mrtr: Mrtr;
  inflight: Map<string, AbortController>;
  clientRequests: ClientRequests;
  auth: LaneAuth;
  sessions: Sessions;
  /** What each lane has open, against gateway.limits. */
  load: LaneLoad;
  /** Fair shares of calls in flight among active lanes. */
  fair: FairShare;
  /** Answer bytes held for clients that have not taken them, per lane and in all. */
  send: SendBudget;
  /** Large request bodies in flight, per lane, by bytes. */
  requestBytes: ByteTurns;
  /** A lane's requests weighed by its recent answers, by bytes (a queue apart from request bodies'). */
  answerBytes: ByteTurns;
  realm: string;
  onRefused: (code: string) => void;
}

export const rpcErrorData = (c: Exchange, r: Rejection, id: unknown, headers: Record<string, string> = {}): Replied =>
  c.json(
    { jsonrpc: '2.0', id: id ?? null, error: { code: r.code, message: r.message, ...(r.data !== undefined ? { data: r.data } : {}) } },
    r.status,
    headers,
  );

/** The W3C trace context of the lane's HTTP request, carried into dispatch. */
export const withTraceOf = (c: Exchange, d: McpHttpDeps): McpHttpDeps => {
  const traceparent = c.req.header('traceparent');
  if (!traceparent) return d;
  const tracestate = c.req.header('tracestate');
  return { ...d, trace: { traceparent, ...(tracestate ? { tracestate } : {}) } };
};
