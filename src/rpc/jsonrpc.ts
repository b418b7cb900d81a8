/** Minimal JSON-RPC 2.0 shapes used on lanegate's internal links (front⇄host, host⇄child). */
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

export const ERR = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
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
  /** The request was cancelled. */
  cancelled: -32800,
} as const;

export class RpcFailure extends Error {
  readonly rpc: RpcError;
  constructor(rpc: RpcError) {
    super(rpc.message);
    this.rpc = rpc;
  }
}
