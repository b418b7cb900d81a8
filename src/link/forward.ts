/**
 * A lane's request forwarded to a host: the lane's params with the caller block in `_meta`.
 * Pure, and used by both ends: the front builds these params when it has changed the lane's
 * (a bare name prefixed, a catalog `call` unwrapped, input answered); when it has not, it sends
 * LINK.forward with the lane's body as the text that arrived, beside the caller block, and the
 * host opens it with the same function. Either way the host sees one shape, and the front neither copies nor
 * re-serialises what it only routed.
 */
import type { WireParts } from '../rpc/parts.js';
import { JsonText } from '../rpc/json-text.js';
import { isObject } from '../records/atomic.js';
import { type Era, MODERN_META } from '../upstream/conn.js';
import { META } from './protocol.js';

type Params = Record<string, unknown>;

export interface CallerBlock {
  lane: string;
  era: Era;
  holder: string;
  /** A 2026-07-28 tools/call's Mcp-Param-* headers. */
  headers?: Record<string, string>;
}

/** W3C trace context of the lane's HTTP request. */
export interface Trace {
  traceparent?: string;
  tracestate?: string;
}

/** The lane's body as it arrived (only the front puts it there), with the caller block and trace. */
export const LANE_BODY = 'lanegate/lane-body';
const TRACE = 'lanegate/trace';

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Passes the lane's W3C trace context on (in _meta, where MCP carries it), if well formed. */
const withTrace = (meta: Params, trace: Trace | undefined): void => {
  if (!trace?.traceparent || !TRACEPARENT.test(trace.traceparent)) return;
  meta.traceparent ??= trace.traceparent;
  if (trace.tracestate && trace.tracestate.length <= 512) meta.tracestate ??= trace.tracestate;
};

/**
 * The params a host acts on. The 2026-07-28 envelope describes the lane's request to the gateway;
 * the host builds the upstream's own. Progress tokens and trace context pass on; a modern lane's
 * declared capabilities travel in the caller block, for upstreams spoken to in 2026-07-28.
 */
export const callerParams = (params: Params, caller: CallerBlock, trace?: Trace): Params => {
  const meta: Params = {};
  const original = isObject(params._meta) ? params._meta : {};
  for (const [k, v] of Object.entries(original)) {
    if (!k.startsWith('io.modelcontextprotocol/')) meta[k] = v;
  }
  withTrace(meta, trace);
  const caps = original[MODERN_META.clientCapabilities];
  meta[META.caller] = { ...caller, ...(isObject(caps) ? { capabilities: caps } : {}) };
  return { ...params, _meta: meta };
};

/** The front's side: the params of a LINK.forward, the lane's body text unparsed beside the caller block. */
export const laneBodyParams = (method: string, bodyText: string | WireParts, caller: CallerBlock, trace?: Trace): JsonText =>
  new JsonText(
    [
      `{"method":${JSON.stringify(method)},"${META.caller}":${JSON.stringify(caller)}${trace?.traceparent ? `,"${TRACE}":${JSON.stringify(trace)}` : ''},"${LANE_BODY}":`,
      ...(typeof bodyText === 'string' ? [bodyText] : bodyText),
      '}',
    ],
    caller.lane || undefined,
  );

/**
 * The host's side of a LINK.forward: the lane's method and its params opened to the one shape
 * (callerParams's). Only for that method: other requests' params are the front's own or the
 * lane's, and a lane's keys are never read as link structure.
 */
export const openForward = (params: Params): { method: string; params: Params } => {
  const body = params[LANE_BODY];
  const lane = isObject(body) && isObject(body.params) ? body.params : {};
  const none: CallerBlock = { lane: '', era: 'legacy', holder: '' };
  const c = isObject(params[META.caller]) ? (params[META.caller] as unknown as CallerBlock) : none;
  const t = params[TRACE];
  return {
    method: typeof params.method === 'string' ? params.method : '',
    params: callerParams(lane, c, isObject(t) ? (t as Trace) : undefined),
  };
};
