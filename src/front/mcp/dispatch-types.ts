import type { Logger } from 'pino';
import type { AuditRecord } from '../../audit/record.js';
import type { Policy } from '../../policy/model.js';
import type { JsonText } from '../../rpc/json-text.js';
import type { RawResult } from '../../rpc/raw.js';
import type { Era } from '../../upstream/conn.js';
import type { Catalog } from './catalog.js';

/** What dispatch needs (services and the request's own values), and what it answers: types only, so the modules dispatch uses may name them without importing dispatch. */
export interface DispatchDeps {
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
  /**
   * The lane's body as it arrived, and the params object parsed from it: while a request still
   * carries exactly those params (nothing rewrote them), it goes to the host as that text.
   */
  laneBody?: { text: string; params: unknown };
  /** The caller passes a forwarded call's result on as text (Dispatched.raw) when it can. */
  rawResults?: boolean;
  /** Aborts when the lane cancels the call (or its connection goes away). */
  signal?: AbortSignal;
  /** The era the lane's request came in (hosts pick an era-matched upstream link by it). */
  era?: Era;
  /** The lane's holder making the request (a session id or a listen stream): subscriptions are its. */
  holder?: string;
  /** A 2026-07-28 tools/call's Mcp-Param-* headers: the host checks them against the tool's schema. */
  paramHeaders?: Record<string, string>;
  /** A resource subscription of a holder was made (on) or released (off) upstream. */
  onSubscription?: (lane: string, holder: string, uri: string, on: boolean) => void;
  serverInfo: { name: string; version: string };
  /** Observes a forwarded call (metrics). `error` is a stable kind, never content. */
  onCall?: (server: string, lane: string, method: string, seconds: number, error?: string) => void;
  /** W3C trace context of the lane's HTTP request, passed on to the upstream call. */
  trace?: { traceparent?: string; tracestate?: string };
  /** Declared-inventory drift lines per server (shown in lanegate_status). */
  drift: () => Record<string, string>;
  /** For a lane: the servers it was moved off a shared child for, and by which request. */
  escalated: (lane: string) => Record<string, { request: string; at: number }>;
  instructions: string;
  /** The lane token's id (jti), for the audit record. */
  tokenId?: string;
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
