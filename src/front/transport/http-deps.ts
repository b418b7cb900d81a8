import type { Exchange, Replied } from './exchange.js';
import type { DispatchServices } from '../mcp/dispatch.js';
import type { LaneAuth } from './auth.js';
import type { Correlation } from '../mcp/correlation.js';
import type { Rejection } from '../../link/param-headers.js';
import type { Sessions } from '../mcp/sessions.js';
import type { LaneLoad } from './lane-load.js';
import type { FairShare } from './fair-share.js';
import type { SendBudget } from './send-budget.js';
import type { ByteTurns } from '../../link/byte-turns.js';

/**
 * What the HTTP handlers of /mcp need from the gateway: services, built once at start and shared
 * by every request. A request's own values travel in its CallContext (mcp/call-context.ts).
 */
export interface McpHttpDeps extends DispatchServices {
  /** The front's one correlation table: calls in flight, call streams, client requests, parked calls. */
  calls: Correlation;
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
