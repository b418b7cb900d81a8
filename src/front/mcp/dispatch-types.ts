import type { Logger } from 'pino';
import type { AuditRecord } from '../../audit/record.js';
import type { Policy } from '../../policy/model.js';
import type { JsonText } from '../../rpc/json-text.js';
import type { RawResult } from '../../rpc/raw.js';
import type { Catalog } from './catalog.js';

/**
 * The services dispatch uses: built once when the gateway starts, shared by every request, holding
 * no request value (those are the CallContext's). Types only, so the modules dispatch uses may
 * name them without importing dispatch.
 */
export interface DispatchServices {
  policy: () => Policy;
  catalog: Catalog;
  /** For the one error no lane request should cause: a bug in dispatch itself. */
  log?: Logger;
  /** A forwarded request to a host, its result left as the host's text. */
  hostRequestRaw: (
    key: string,
    method: string,
    params: Record<string, unknown> | JsonText,
    timeoutMs: number,
    signal?: AbortSignal,
  ) => Promise<RawResult>;
  /** A resource subscription of a holder was made (on) or released (off) upstream. */
  onSubscription?: (lane: string, holder: string, uri: string, on: boolean) => void;
  /** How many resource subscriptions a holder holds now (a handshake-era session's; 0 for another holder). */
  subscriptionsOf?: (lane: string, holder: string, uri: string) => { held: number; has: boolean; lane: number };
  serverInfo: { name: string; version: string };
  /** Observes a forwarded call (metrics). `error` is a stable kind, never content. */
  onCall?: (server: string, lane: string, method: string, seconds: number, error?: string) => void;
  /** Declared-inventory drift lines per server (shown in lanegate_status). */
  drift: () => Record<string, string>;
  /** For a lane: the servers it was moved off a shared child for, and by which request. */
  escalated: (lane: string) => Record<string, { request: string; at: number }>;
  instructions: string;
  /** Takes one audit record per forwarded request (the front's audit log). */
  onAudit?: (r: AuditRecord) => void;
}

export interface Dispatched {
  status: number;
  result?: Record<string, unknown>;
  /** A forwarded call's result as the host wrote it, not parsed by the front (instead of `result`). */
  raw?: RawResult;
  error?: { code: number; message: string; data?: unknown };
}
