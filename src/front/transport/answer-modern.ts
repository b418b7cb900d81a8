import { type Exchange, Replied } from './exchange.js';
import { streamSse } from './sse-stream.js';
import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { progressTokenOf } from '../mcp/progress-token.js';
import { type Dispatched, dispatch, parsedResult } from '../mcp/dispatch.js';
import { modernResultText } from './modern-result.js';
import type { ParkedCall } from '../mcp/mrtr.js';
import { withCallToken } from './call-streams.js';
import { type McpHttpDeps, rpcErrorData } from './http-deps.js';
import { pumpSse } from './sse-pump.js';
import { inputRound } from './modern-input-round.js';
import { type ModernCall, nextTurn } from './modern-call.js';
import { MODERN_CALL } from '../mcp/client-requests.js';
import type { CallContext } from '../mcp/call-context.js';

type Params = Record<string, unknown>;
type Render = (r: Dispatched) => { status: number; body: Params };

type Begun = Pick<ModernCall, 's' | 'done'>;

/** Start: a fresh call on a new call stream; an upstream's own input_required comes back with its requestState sealed inside ours. */
const start = (d: McpHttpDeps, x: CallContext, call: RpcRequest, callKey: string, meta: Params, caps: Params): Begun => {
  const lane = x.lane;
  const wantsLogs = meta['io.modelcontextprotocol/logLevel'] !== undefined;
  const s = d.calls.streams.start(lane, progressTokenOf(meta), false, wantsLogs);
  s.caps = caps;
  const done = dispatch(d, x, withCallToken(call, s)).then((r0) => {
    // A result left as text is read only if it may be the upstream's own input round.
    const r = r0.raw?.mayHave('resultType') ? parsedResult(r0) : r0;
    // An upstream that spoke 2026-07-28 asked for input itself: pass its request through, with
    // its requestState sealed inside ours (bound to this lane and call, one-shot).
    if (r.result?.resultType !== 'input_required') return r;
    return { ...r, result: { ...r.result, requestState: d.calls.mrtr.sealUpstream(lane, callKey, r.result.requestState) } };
  });
  return { s, done };
};

/** Resume: the parked call's stream reopens and the lane's inputResponses answer what the upstream asked. */
const resume = (d: McpHttpDeps, lane: string, parked: ParkedCall, params: Params, caps: Params): Begun => {
  const s = parked.stream;
  s.caps = caps;
  d.calls.streams.reopen(s);
  const responses = (params.inputResponses ?? {}) as Record<string, Params>;
  for (const [k, id] of parked.pending) {
    const r = responses[k];
    d.calls.clientRequests.answer(
      lane,
      MODERN_CALL,
      r ? { id, result: r } : { id, error: { code: ERR.invalidParams, message: `no input response for ${k}` } },
    );
  }
  return { s, done: parked.done };
};

/**
 * A requestState resumes a parked call, re-issues the upstream's own input round to it (with its
 * state and the answers), or is refused. inputResponses without a requestState resume nothing: the
 * call is a fresh one, and the responses go on to an upstream that speaks 2026-07-28.
 */
const begin = (c: Exchange, d: McpHttpDeps, x: CallContext, req: RpcRequest, callKey: string): Begun | Replied => {
  const lane = x.lane;
  const params = req.params ?? {};
  const meta = (params._meta ?? {}) as Params;
  const caps = (meta['io.modelcontextprotocol/clientCapabilities'] ?? {}) as Params;
  if (params.requestState === undefined) return start(d, x, req, callKey, meta, caps);
  const t = d.calls.mrtr.take(params.requestState, lane, callKey);
  if (!t.ok) return rpcErrorData(c, { status: 400, code: ERR.invalidParams, message: `Invalid params: ${t.reason}` }, req.id);
  if ('call' in t) return resume(d, lane, t.call, params, caps);
  const { requestState: _ours, ...rest } = params;
  const call = { ...req, params: { ...rest, ...(t.upstream !== undefined ? { requestState: t.upstream } : {}) } };
  return start(d, x, call, callKey, meta, caps);
};

/** Finish: the result as JSON (the host's bytes spliced in when the front did not parse them). */
const finish = (c: Exchange, d: McpHttpDeps, m: ModernCall, result: Dispatched, render: Render): Replied => {
  d.calls.streams.end(m.s);
  const spliced = result.raw && !result.error ? modernResultText(m.req.method, result.raw, d.serverInfo) : undefined;
  if (spliced !== undefined)
    return c.body([`{"jsonrpc":"2.0","id":${JSON.stringify(m.req.id)},"result":`, ...spliced, '}'], result.status, {
      'content-type': 'application/json',
    });
  const out = render(parsedResult(result));
  return c.json(out.body, out.status);
};

/** The upstream asked for what the lane did not declare: -32021, unless requests it can serve arrive a tick later. */
const missingCapability = async (c: Exchange, d: McpHttpDeps, m: ModernCall, need: string): Promise<Replied> => {
  await new Promise((r) => setTimeout(r, 30));
  if (m.s.inputs.length > 0) return c.json(await inputRound(d, m));
  d.calls.streams.end(m.s);
  return rpcErrorData(
    c,
    {
      status: 400,
      code: ERR.missingCapability,
      message: `Missing required client capability: ${need}`,
      data: { requiredCapabilities: { [need]: {} } },
    },
    m.req.id,
  );
};

/** Notifications came first and the client takes SSE: they, then the result (or an input round), on a stream. */
const streamRest = (c: Exchange, d: McpHttpDeps, m: ModernCall, render: Render): Replied =>
  streamSse(c, async (stream) => {
    try {
      await pumpSse(stream, {
        queue: m.s.queue,
        arm: (w) => {
          m.s.wake = w;
          if (m.s.queue.length > 0 || m.s.inputs.length > 0 || m.result) w();
        },
        after: () => (m.result ? render(parsedResult(m.result)).body : m.s.inputs.length > 0 ? inputRound(d, m) : undefined),
      });
    } finally {
      if (m.result) d.calls.streams.end(m.s);
    }
  });

/**
 * A 2026-07-28 call: JSON by default; SSE when notifications arrive first; and when the upstream
 * asks the client something (sampling, elicitation, roots), an `input_required` result that parks
 * the call until the lane retries with `inputResponses` and the sealed `requestState`.
 */
export const answerModern = async (c: Exchange, d: McpHttpDeps, x: CallContext, req: RpcRequest, render: Render): Promise<Replied> => {
  const params = req.params ?? {};
  const callKey = `${req.method}:${JSON.stringify(params.name ?? params.uri ?? params.ref ?? '')}`;
  const begun = begin(c, d, x, req, callKey);
  if (begun instanceof Replied) return begun;
  const m: ModernCall = { lane: x.lane, req, callKey, ...begun };
  void m.done.then((r) => {
    m.result = r;
    m.s.wake();
  });
  const turn = await nextTurn(m, (c.req.header('accept') ?? '').includes('text/event-stream'));
  if (turn.kind === 'result') return finish(c, d, m, turn.result, render);
  if (turn.kind === 'input') return c.json(await inputRound(d, m));
  if (turn.kind === 'missing') return missingCapability(c, d, m, turn.need);
  return streamRest(c, d, m, render);
};
