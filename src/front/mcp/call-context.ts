import type { WireParts } from '../../rpc/parts.js';
import type { Era } from '../../upstream/conn.js';

/** A JSON-RPC request id as the lane sent it (or its exact stand-in): compared by value, never joined into a string. */
export type RequestId = string | number | null;

/** The W3C trace context of the lane's HTTP request, passed on to the upstream call. */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/**
 * What lives for ONE request of a lane, and nothing else: built once per HTTP request that
 * dispatches (transport/call-context-of.ts), or once by the front itself when it acts for a holder
 * (a session's subscriptions released at its end, a listen stream's). It is passed explicitly
 * beside the services (DispatchServices, McpHttpDeps), which are built once at start and hold no
 * request value. Every field is present (undefined when it does not apply): one shape on the hot path.
 */
export interface CallContext {
  readonly lane: string;
  /** The era the lane's request came in (hosts pick an era-matched upstream link by it). */
  readonly era: Era;
  /**
   * Who in the lane makes the request: a session id (handshake era) or a listen stream; its
   * subscriptions and tasks are its. Undefined for a 2026-07-28 request (the HTTP request is its own holder).
   */
  readonly holder: string | undefined;
  /** The request's id: what a lane's notifications/cancelled names. */
  readonly id: RequestId;
  /** Aborts when the lane cancels the call (or its connection goes away). */
  readonly signal: AbortSignal | undefined;
  readonly trace: TraceContext | undefined;
  /**
   * The lane's body as it arrived, and the params object parsed from it: while a request still
   * carries exactly those params (nothing rewrote them), it goes to the host as that text (a
   * large body as its parts, never joined: large-body.ts).
   */
  readonly bodyText: string | WireParts | undefined;
  readonly bodyParams: unknown;
  /** A 2026-07-28 tools/call's Mcp-Param-* headers: the host checks them against the tool's schema. */
  readonly paramHeaders: Record<string, string> | undefined;
  /** The lane token's id (jti), for the audit record. */
  readonly tokenId: string | undefined;
  /** The caller takes a forwarded call's result on as text (Dispatched.raw) when it can. */
  readonly rawResults: boolean;
  /**
   * Told the server a forwarded request goes to, before it is sent: a handshake-era call's stream
   * learns which upstream may ask its client something (client-requests.ts reachLane).
   */
  readonly routed: ((server: string) => void) | undefined;
}

/** A call a lane may cancel while it runs: its context, with the controller its signal belongs to. */
export interface CancellableCall extends CallContext {
  readonly abort: AbortController;
}

/** The context of what the front does itself for a holder of a lane (no HTTP request of its own: no signal, no body). */
export const holderContext = (lane: string, era: Era, holder: string): CallContext => ({
  lane,
  era,
  holder,
  id: null,
  signal: undefined,
  trace: undefined,
  bodyText: undefined,
  bodyParams: undefined,
  paramHeaders: undefined,
  tokenId: undefined,
  rawResults: false,
  routed: undefined,
});
