import type { LaneClaims } from '../../auth/tokens.js';
import type { WireParts } from '../../rpc/parts.js';
import type { Exchange, Replied } from './exchange.js';
import { type McpHttpDeps, rpcErrorData } from './http-deps.js';

/** One authenticated, parsed and classified POST on /mcp: what each era's handler starts from. */
export interface Post {
  c: Exchange;
  d: McpHttpDeps;
  lane: string;
  claims: LaneClaims;
  /** The parsed body, and its text as it arrived (sent to the host so): whole, or a large body's parts. */
  body: unknown;
  sent: string | WireParts;
  /** The request's id, or null. */
  id: unknown;
}

/** A JSON-RPC error as an HTTP answer with this status. */
export const rpcError = (
  c: Exchange,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
  headers: Record<string, string> = {},
): Replied => rpcErrorData(c, { status, code, message }, id, headers);
