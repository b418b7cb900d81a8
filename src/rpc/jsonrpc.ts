/** Minimal JSON-RPC 2.0 shapes used on lanegate's internal links (front⇄host, host⇄child). */
import type { FailureKind } from '../errors.js';

export type Id = string | number;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: Id;
  method: string;
  params?: Record<string, unknown>;
}

export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: Id | null;
  result?: Record<string, unknown>;
  error?: RpcError;
}

export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

export const isRequest = (m: RpcMessage): m is RpcRequest => 'method' in m && 'id' in m && m.id !== undefined && m.id !== null;
export const isNotification = (m: RpcMessage): m is RpcNotification => 'method' in m && !('id' in m && m.id !== undefined);
export const isResponse = (m: RpcMessage): m is RpcResponse => !('method' in m) && 'id' in m;

/**
 * Every JSON-RPC error code lanegate sends or branches on, by name: the one table (no code is written
 * as a number anywhere else in src/). The spec's codes, then MCP's, then lanegate's own (-32000..-32099
 * is the spec's implementation-defined server range).
 */
export const ERR = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** HTTP-level refusal on /mcp: the HTTP method is not allowed (405), e.g. GET or DELETE without a legacy session. */
  methodNotAllowed: -32000,
  /** lanegate: the upstream or host is unavailable right now (crashed, restarting, refused). */
  unavailable: -32001,
  /** lanegate: the call timed out. */
  timeout: -32002,
  /** lanegate: not in this lane's catalog. */
  notInCatalog: -32003,
  /** lanegate: an answer or a request over a byte limit (the error names the setting). */
  tooLarge: -32004,
  /** lanegate: a secret in a lane's request or an upstream's answer (servers.X.secrets). */
  secretRefused: -32030,
  /** MCP 2026-07-28: the Mcp-Method / Mcp-Name / Mcp-Param headers and the body disagree (HTTP 400). */
  headerMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability the lane did not declare (HTTP 400). */
  missingCapability: -32021,
  /** MCP 2026-07-28: the protocol revision the request names is not one served (HTTP 400). */
  unsupportedVersion: -32022,
  /** The request was cancelled. */
  cancelled: -32800,
} as const;

export class RpcFailure extends Error {
  readonly rpc: RpcError;
  /** What happened to the peer, when the link knows it (set by whoever closed it; never sent). */
  readonly kind?: FailureKind;
  constructor(rpc: RpcError, kind?: FailureKind) {
    super(rpc.message);
    this.rpc = rpc;
    if (kind) this.kind = kind;
  }
}
