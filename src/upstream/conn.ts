import type { RpcNotification, RpcRequest } from '../rpc/jsonrpc.js';
import { VERSION } from '../install-paths.js';

/** A protocol era: the handshake era (2024-11-05 … 2025-11-25) or the stateless 2026-07-28. */
export type Era = 'legacy' | 'modern';

export interface UpstreamInit {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: Record<string, unknown>;
  instructions?: string;
}

export interface UpstreamEvents {
  onNotification: (n: RpcNotification) => void;
  /** A request the server sent us; the answer is returned to it. */
  onServerRequest: (r: RpcRequest) => Promise<Record<string, unknown>>;
  onExit: (detail: string) => void;
  onStderr?: (line: string) => void;
  /** The upstream went past a limit (an answer over resultBytes, a line that is not JSON-RPC): worth a warn line. */
  onLimit?: (info: { detail: string; bytes?: number; limit?: number }) => void;
}

/** One live connection to one upstream server (a stdio child or an HTTP backend session). */
export interface UpstreamConn {
  readonly pid: number | undefined;
  readonly init: UpstreamInit;
  /** Spoken in 2026-07-28 (per-request envelope; input_required results). */
  readonly modern?: boolean;
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>>;
  notify(method: string, params?: Record<string, unknown>): void;
  /** Stops it; calls still waiting on it fail with `reason` when one is given (why it was stopped under them). */
  stop(reason?: string): Promise<void>;
  /**
   * Ends a child that no longer answers, at once (SIGKILL: a blocked event loop runs no handler):
   * its calls fail with `reason`, and its exit is a crash (restarted). Absent for an HTTP upstream.
   */
  kill?(reason: string): void;
  /**
   * Starts noting whether it writes anything to us (until `stop`): a stuck-child check's evidence
   * of life (stuck-child.ts), watched only while one runs. Absent for an HTTP upstream.
   */
  watchOutput?(): { heard: () => boolean; stop: () => void };
}

export const CLIENT_INFO = { name: 'lanegate', version: VERSION };
export const UPSTREAM_PROTOCOL_VERSION = '2025-11-25';

/**
 * What lanegate tells an upstream it can do as a client: it relays sampling, elicitation and
 * roots requests to the lane whose call they belong to (or refuses them when none can answer).
 */
export const CLIENT_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: false } };
/**
 * What a SHARED child (and a measurement's scratch child, which stands in for one) is told the
 * client can do: no roots. A process several lanes share has no one lane's workspace, so it is not
 * invited to ask for one (an unprompted roots/list on a contested child would be a hazard).
 */
/**
 * Client-side tasks (2025-11-25) declared to a handshake-era child that serves one lane: it may ask
 * for sampling or elicitation as a task and poll it (tasks/get, tasks/result, tasks/cancel), which
 * the front relays to the one session whose client made the task. Never to a shared child (its
 * polls could not be routed), and not tasks/list (a lane's client tasks are not the upstream's to list).
 */
export const CLIENT_TASKS = { cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } };

export const SHARED_CLIENT_CAPABILITIES = { sampling: {}, elicitation: {} };

export const MODERN_REVISION = '2026-07-28';
export const MODERN_META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;
