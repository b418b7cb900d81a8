import { lastsUntilOperatorActs } from '../../link/absence.js';
import { type AbsenceCode, LINK, META, TASK_NOT_FOUND } from '../../link/protocol.js';
import type { Policy } from '../../policy/model.js';
import { type CallerBlock, callerParams, laneBodyParams } from '../../link/forward.js';
import { LIST_FIELDS } from '../../link/lists.js';
import { ERR, RpcFailure, type RpcRequest } from '../../rpc/jsonrpc.js';
import { isLinkTimeout } from '../../rpc/endpoint.js';
import type { RawResult } from '../../rpc/raw.js';
import type { JsonText } from '../../rpc/json-text.js';
import type { Catalog } from './catalog.js';
import type { Logger } from 'pino';
import { paramsProblem } from './param-checks.js';
import type { Era } from '../../upstream/conn.js';
import { bareResult, prefixedParams } from '../../naming/bare.js';
import { laneStatus, searchResult, searchTools, statusTool, toolText } from './agent-tools.js';
import { type Plan, planRequest } from './plan.js';
import type { AuditRecord } from '../../audit/record.js';
import { splitRawVia } from '../../link/via.js';
import { auditorOf } from './audit-call.js';
import { listTasks, taskEraGate } from './tasks.js';

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

export const FRONT_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  completions: {},
  logging: {},
};

/**
 * One JSON-RPC request of an authenticated lane, in either era. Lists come from the lane's
 * catalog; calls are routed by prefix to the host that serves them; anything outside the
 * lane's loadout is refused (403) without reaching a host.
 */
export const dispatch = async (d: DispatchDeps, lane: string, req: RpcRequest): Promise<Dispatched> => {
  const problem = paramsProblem(req.method, req.params);
  if (problem) return { status: 400, error: { code: ERR.invalidParams, message: `Invalid params: ${problem}` } };
  try {
    const bare = barePrefix(d.policy(), lane);
    if (bare === undefined) return await dispatchNamed(d, lane, req);
    const r = parsedResult(await dispatchNamed(d, lane, { ...req, params: prefixedParams(req.method, req.params ?? {}, bare) }));
    return r.result ? { ...r, result: bareResult(req.method, r.result, bare) } : r;
  } catch (e) {
    // Never a rejection: a call's promise may be awaited by no one (a parked 2026-07-28 call), and an
    // unhandled rejection would end the front for every lane.
    d.log?.error(
      { event: 'dispatch_failed', method: req.method, detail: e instanceof Error ? e.message.slice(0, 200) : 'unknown' },
      'dispatch failed',
    );
    return { status: 500, error: { code: ERR.internal, message: 'Internal error' } };
  }
};

/** A dispatched answer with its result parsed, for the paths that read or rewrite it. */
export const parsedResult = (r: Dispatched): Dispatched => {
  if (!r.raw) return r;
  const { raw, ...rest } = r;
  return { ...rest, result: raw.parsed() };
};

/**
 * The calls of the protocol (as against lists and housekeeping): their answers may stream
 * (progress, logs) and their results pass through the front as text.
 */
export const CALL_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get', 'completion/complete']);

/**
 * Whether retrying can help, for an upstream that could not take a call. A refusal by the guard,
 * a name collision or an inventory withheld lasts until an operator acts; a crash or a restart
 * passes by itself. Pure.
 */
export const retryAdvice = (code: AbsenceCode | undefined): string =>
  code !== undefined && lastsUntilOperatorActs(code)
    ? 'The call did not run. This lasts until an operator acts (the remedy is above); retrying will not help.'
    : 'The call did not complete; retry in a few seconds.';

/** The prefix a `naming: bare` lane's names are unprefixed from (its one server's), if it is such a lane. */
export const barePrefix = (policy: Policy, lane: string): string | undefined => {
  const l = policy.lanes[lane];
  return l?.naming === 'bare' ? policy.servers[l.servers[0] ?? '']?.prefix : undefined;
};

const dispatchNamed = async (d: DispatchDeps, lane: string, req: RpcRequest): Promise<Dispatched> => {
  const params = req.params ?? {};
  const gated = taskEraGate(d.era, req.method, params);
  if (gated) return gated;
  const plan = planRequest(d.policy(), lane, req.method, params);
  switch (plan.kind) {
    case 'answer':
      return { status: 200, result: {} };
    case 'search-tools':
      return { status: 200, result: { tools: searchTools } };
    case 'list': {
      const listing = await d.catalog.list(lane, plan.method, d.era);
      return { status: 200, result: { [LIST_FIELDS[plan.method]]: plan.withStatus ? [...listing.items, statusTool] : listing.items } };
    }
    case 'status': {
      const listing = await d.catalog.list(lane, 'tools/list', d.era);
      return { status: 200, result: toolText(laneStatus(d.policy(), lane, listing.items, listing.absent, d.drift(), d.escalated(lane))) };
    }
    case 'search': {
      const listing = await d.catalog.list(lane, 'tools/list', d.era);
      return { status: 200, result: searchResult([...listing.items, statusTool], plan.query, plan.limit) };
    }
    case 'tool-error':
      return { status: 200, result: toolText(plan.text, true) };
    case 'call-through':
      return dispatchNamed(d, lane, { ...req, params: { ...params, name: plan.name, arguments: plan.arguments } });
    case 'not-found':
      return { status: 200, error: { code: ERR.methodNotFound, message: `method not found: ${req.method}` } };
    case 'tasks-list':
      return listTasks(d, lane, params);
    case 'task-unknown':
      return { status: 200, error: { code: ERR.invalidParams, message: TASK_NOT_FOUND } };
    case 'refuse':
      return { status: 403, error: { code: ERR.notInCatalog, message: `"${plan.target.slice(0, 200)}" is not in this lane's catalog` } };
    case 'forward':
      return forward(d, lane, req, plan);
  }
};

/**
 * A request the planner routed to a host: sent with the caller block, observed, its failures made
 * readable. Params the front did not touch cross as the lane's own text; the result comes back as
 * the host's text, parsed here only if the caller must read it (not rawResults).
 */
const forward = async (d: DispatchDeps, lane: string, req: RpcRequest, plan: Extract<Plan, { kind: 'forward' }>): Promise<Dispatched> => {
  const params = req.params ?? {};
  const { server, hostKey, target, timeoutMs } = plan;
  const started = process.hrtime.bigint();
  const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
  const caller: CallerBlock = {
    lane,
    era: d.era ?? 'legacy',
    holder: d.holder ?? '',
    ...(d.paramHeaders ? { headers: d.paramHeaders } : {}),
  };
  // The lane's body, while this request still carries exactly the params parsed from it.
  const body = req.params !== undefined && d.laneBody?.params === req.params ? d.laneBody : undefined;
  const audit = auditorOf(d, lane, req, server, target, seconds);
  try {
    // The host's note of where the request ran is cut off here, before anything reads the result.
    const { raw, via } = splitRawVia(
      body
        ? await d.hostRequestRaw(hostKey, LINK.forward, laneBodyParams(req.method, body.text, caller, d.trace), timeoutMs, d.signal)
        : await d.hostRequestRaw(hostKey, req.method, callerParams(params, caller, d.trace), timeoutMs, d.signal),
    );
    if (req.method === 'resources/subscribe' || req.method === 'resources/unsubscribe')
      d.onSubscription?.(lane, d.holder ?? '', target, req.method === 'resources/subscribe');
    // The metric's label only: a nested "isError":true would count a success as a tool error.
    const toolError = raw.text.includes('"isError":true');
    d.onCall?.(server, lane, req.method, seconds(), toolError ? 'tool_error' : undefined);
    audit?.({ via, outcome: toolError ? 'tool_error' : 'ok', out: raw.text });
    return d.rawResults && CALL_METHODS.has(req.method) ? { status: 200, raw } : { status: 200, result: raw.parsed() };
  } catch (e) {
    const failed = e instanceof RpcFailure ? e.rpc : { code: ERR.internal, message: 'internal error' };
    // The link's own timeout (not an upstream's, relayed by the host) names the lane's method, never the link's.
    const rpc =
      failed.code === ERR.timeout && isLinkTimeout(failed)
        ? { code: ERR.timeout, message: `${req.method} timed out after ${timeoutMs} ms` }
        : failed;
    const kind = rpc.code === ERR.timeout ? 'timeout' : rpc.code === ERR.unavailable ? 'unavailable' : 'protocol';
    d.onCall?.(server, lane, req.method, seconds(), kind);
    audit?.({ outcome: 'error', errorCode: rpc.code, error: rpc.code === ERR.notInCatalog ? 'not_in_catalog' : kind, out: rpc.message });
    if (req.method === 'tools/call' && (rpc.code === ERR.unavailable || rpc.code === ERR.timeout)) {
      // A tool of an unavailable upstream answers loudly, as a tool error the agent reads.
      return {
        status: 200,
        result: {
          content: [
            {
              type: 'text',
              text:
                rpc.code === ERR.timeout
                  ? `lanegate: ${rpc.message}. The upstream may still have acted on it; check before retrying.`
                  : `lanegate: ${rpc.message}. ${retryAdvice((rpc.data as Record<string, AbsenceCode> | undefined)?.[META.absent])}`,
            },
          ],
          isError: true,
        },
      };
    }
    // The host found the name outside what this lane may reach: the same 403 as the front's own check.
    return { status: rpc.code === ERR.notInCatalog ? 403 : 200, error: rpc };
  }
};
