import { lastsUntilOperatorActs } from '../../link/absence.js';
import { type Absence, type AbsenceCode, LINK, META, TASK_NOT_FOUND } from '../../link/protocol.js';
import type { Policy } from '../../policy/model.js';
import { type CallerBlock, callerParams, laneBodyParams } from '../../link/forward.js';
import { LIST_FIELDS } from '../../link/lists.js';
import { ERR, RpcFailure, type RpcRequest } from '../../rpc/jsonrpc.js';
import { isLinkTimeout } from '../../rpc/endpoint.js';
import { MAX_LANE_RESOURCE_SUBSCRIPTIONS, MAX_RESOURCE_SUBSCRIPTIONS, paramsProblem } from './param-checks.js';
import { bareResult, prefixedParams } from '../../naming/bare.js';
import { laneStatus, searchResult, searchTools, statusTool, toolText } from './agent-tools.js';
import { type Plan, planRequest } from './plan.js';
import { splitRawVia } from '../../link/via.js';
import { auditorOf } from './audit-call.js';
import { listTasks, taskEraGate } from './tasks.js';
import { absenceOfWithheld } from './catalog-guard.js';
import type { Dispatched, DispatchServices } from './dispatch-types.js';
import type { CallContext } from './call-context.js';
import { shownName } from '../../log/escape.js';
import { keyNeedle } from '../../rpc/raw.js';
import { turn } from '../../rpc/turn.js';
import { ADDED_KEYS } from '../transport/modern-result.js';

const TOOL_ERROR = '"isError":true';
/** What a result's way to the lane searches its text for (a tool error, the keys the front may add). */
const RESULT_NEEDLES = [TOOL_ERROR, ...ADDED_KEYS.map(keyNeedle)];

export type { Dispatched, DispatchServices } from './dispatch-types.js';

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
 * lane's loadout is refused (403) without reaching a host. `d` lives for the gateway, `x` for this request.
 */
export const dispatch = async (d: DispatchServices, x: CallContext, req: RpcRequest): Promise<Dispatched> => {
  const lane = x.lane;
  const problem = paramsProblem(req.method, req.params);
  if (problem) return { status: 400, error: { code: ERR.invalidParams, message: `Invalid params: ${problem}` } };
  try {
    const bare = barePrefix(d.policy(), lane);
    if (bare === undefined) return await dispatchNamed(d, x, req);
    const r = parsedResult(await dispatchNamed(d, x, { ...req, params: prefixedParams(req.method, req.params ?? {}, bare) }));
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

/** What a server withheld from a lane cannot do for it (a task it already has may still be read or cancelled). */
const WITHHELD_METHODS: ReadonlySet<string> = new Set([...CALL_METHODS, 'resources/subscribe']);

/** The answer to a request for a withheld server: as loud as the host's for one it refused. */
const withheldAnswer = (method: string, a: Absence): Dispatched => {
  const message = `upstream "${a.server}" ${a.reason}`;
  if (method === 'tools/call') return { status: 200, result: toolText(`lanegate: ${message}. ${retryAdvice(a.code)}`, true) };
  return { status: 200, error: { code: ERR.unavailable, message, data: { [META.absent]: a.code } } };
};

const dispatchNamed = async (d: DispatchServices, x: CallContext, req: RpcRequest): Promise<Dispatched> => {
  const { lane, era } = x;
  const params = req.params ?? {};
  const gated = taskEraGate(era, req.method, params);
  if (gated) return gated;
  const plan = planRequest(d.policy(), lane, req.method, params);
  switch (plan.kind) {
    case 'answer':
      return { status: 200, result: {} };
    case 'search-tools':
      return { status: 200, result: { tools: searchTools } };
    case 'list': {
      const listing = await d.catalog.list(lane, plan.method, era);
      return { status: 200, result: { [LIST_FIELDS[plan.method]]: plan.withStatus ? [...listing.items, statusTool] : listing.items } };
    }
    case 'status': {
      const listing = await d.catalog.list(lane, 'tools/list', era);
      return { status: 200, result: toolText(laneStatus(d.policy(), lane, listing.items, listing.absent, d.drift(), d.escalated(lane))) };
    }
    case 'search': {
      const listing = await d.catalog.list(lane, 'tools/list', era);
      return { status: 200, result: searchResult([...listing.items, statusTool], plan.query, plan.limit) };
    }
    case 'tool-error':
      return { status: 200, result: toolText(plan.text, true) };
    case 'call-through':
      return dispatchNamed(d, x, { ...req, params: { ...params, name: plan.name, arguments: plan.arguments } });
    case 'not-found':
      return { status: 200, error: { code: ERR.methodNotFound, message: `method not found: ${shownName(req.method)}` } };
    case 'tasks-list':
      return listTasks(d, x, params);
    case 'task-unknown':
      return { status: 200, error: { code: ERR.invalidParams, message: TASK_NOT_FOUND } };
    case 'refuse':
      return { status: 403, error: { code: ERR.notInCatalog, message: `"${plan.target.slice(0, 200)}" is not in this lane's catalog` } };
    case 'forward': {
      // A server the lane's whole catalog withholds runs nothing for that lane (see catalog-guard.ts).
      const w = WITHHELD_METHODS.has(req.method) ? await d.catalog.withheldFor(lane, plan.server, era) : undefined;
      if (w) return withheldAnswer(req.method, absenceOfWithheld(plan.server, w));
      return req.method === 'resources/subscribe' ? subscribe(d, x, req, plan) : forward(d, x, req, plan);
    }
  }
};

/** A tools/call whose upstream timed out or is unavailable, as a tool error saying whether to retry. */
const unavailableTool = (rpc: { code: number; message: string; data?: unknown }): Dispatched => ({
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
});

/** A request the planner routed to a host, on its way there. */
type Forwarding = (d: DispatchServices, x: CallContext, req: RpcRequest, plan: Extract<Plan, { kind: 'forward' }>) => Promise<Dispatched>;

/**
 * A resource subscription, refused when its session already holds MAX_RESOURCE_SUBSCRIPTIONS others
 * or its lane's sessions MAX_LANE_RESOURCE_SUBSCRIPTIONS (a listen stream asks for its own at most
 * MAX_RESOURCE_SUBSCRIPTIONS). Attack round 12: one session held 150,000, the front and the host
 * kept each, and ending that session held another lane's call 17 s.
 */
const subscribe: Forwarding = async (d, x, req, plan) => {
  const holder = x.holder ?? '';
  const held = d.subscriptionsOf?.(x.lane, holder, plan.target);
  if (!held || held.has) return forward(d, x, req, plan);
  const full =
    held.held >= MAX_RESOURCE_SUBSCRIPTIONS
      ? `this session already holds ${MAX_RESOURCE_SUBSCRIPTIONS} resource subscriptions, the most a session may hold`
      : held.lane >= MAX_LANE_RESOURCE_SUBSCRIPTIONS
        ? `this lane's sessions already hold ${MAX_LANE_RESOURCE_SUBSCRIPTIONS} resource subscriptions, the most a lane may hold`
        : undefined;
  if (full) return { status: 200, error: { code: ERR.invalidRequest, message: `lanegate: ${full}; unsubscribe from one first` } };
  // Counted before it goes up, so that subscriptions asked for at once cannot all pass the bound;
  // let go again if the upstream refused it.
  d.onSubscription?.(x.lane, holder, plan.target, true);
  const r = await forward(d, x, req, plan);
  if (r.error) d.onSubscription?.(x.lane, holder, plan.target, false);
  return r;
};

/**
 * A request the planner routed to a host: sent with the caller block, observed, its failures made
 * readable. Params the front did not touch cross as the lane's own text; the result comes back as
 * the host's text, parsed here only if the caller must read it (not rawResults).
 */
const forward: Forwarding = async (d, x, req, plan) => {
  const lane = x.lane;
  const params = req.params ?? {};
  const { server, hostKey, target, timeoutMs } = plan;
  x.routed?.(server);
  const started = process.hrtime.bigint();
  const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
  const caller: CallerBlock = {
    lane,
    era: x.era,
    holder: x.holder ?? '',
    ...(x.paramHeaders ? { headers: x.paramHeaders } : {}),
  };
  // The lane's body, while this request still carries exactly the params parsed from it.
  const body = req.params !== undefined && x.bodyParams === req.params ? x.bodyText : undefined;
  const audit = auditorOf(d, x, req, server, target, seconds);
  try {
    // The host's note of where the request ran is cut off here, before anything reads the result.
    const { raw, via } = splitRawVia(
      body !== undefined
        ? await d.hostRequestRaw(hostKey, LINK.forward, laneBodyParams(req.method, body, caller, x.trace), timeoutMs, x.signal)
        : await d.hostRequestRaw(hostKey, req.method, callerParams(params, caller, x.trace), timeoutMs, x.signal),
    );
    if (req.method === 'resources/subscribe' || req.method === 'resources/unsubscribe')
      d.onSubscription?.(lane, x.holder ?? '', target, req.method === 'resources/subscribe');
    // A large result is searched once, in steps, for all that its way to the lane asks of it.
    if (raw.parts.length > 1) await raw.searchPaced(RESULT_NEEDLES, turn);
    // The metric's label only: a nested "isError":true would count a success as a tool error.
    const toolError = raw.includes(TOOL_ERROR);
    d.onCall?.(server, lane, req.method, seconds(), toolError ? 'tool_error' : undefined);
    audit?.({ via, outcome: toolError ? 'tool_error' : 'ok', out: raw });
    return x.rawResults && CALL_METHODS.has(req.method) ? { status: 200, raw } : { status: 200, result: raw.parsed() };
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
    // A tool of an unavailable upstream answers loudly, as a tool error the agent reads.
    if (req.method === 'tools/call' && (rpc.code === ERR.unavailable || rpc.code === ERR.timeout)) return unavailableTool(rpc);
    // The host found the name outside what this lane may reach: the same 403 as the front's own check.
    return { status: rpc.code === ERR.notInCatalog ? 403 : 200, error: rpc };
  }
};
