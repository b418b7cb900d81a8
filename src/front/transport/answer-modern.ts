import type { Exchange, Replied } from './exchange.js';
import { streamSse } from './sse-stream.js';
import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { type Dispatched, dispatch, parsedResult } from '../mcp/dispatch.js';
import { modernResultText } from './modern-result.js';
import type { ParkedCall } from '../mcp/mrtr.js';
import { type CallStream, withCallToken } from './call-streams.js';
import { type McpHttpDeps, rpcErrorData } from './http-deps.js';
import { pumpSse } from './sse-pump.js';
import { MODERN_CALL } from '../mcp/client-requests.js';
const wake = (s: CallStream): Promise<void> =>
  new Promise<void>((r) => {
    s.wake = r;
    if (s.queue.length > 0 || s.inputs.length > 0 || s.missingCapability) r();
  });

/**
 * A 2026-07-28 call: JSON by default; SSE when notifications arrive first; and when the upstream
 * asks the client something (sampling, elicitation, roots), an `input_required` result that parks
 * the call until the lane retries with `inputResponses` and the sealed `requestState`.
 */
export const answerModern = async (
  c: Exchange,
  d: McpHttpDeps,
  lane: string,
  req: RpcRequest,
  render: (r: Dispatched) => { status: number; body: Record<string, unknown> },
): Promise<Replied> => {
  const params = req.params ?? {};
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const callKey = `${req.method}:${JSON.stringify(params.name ?? params.uri ?? params.ref ?? '')}`;
  const caps = (meta['io.modelcontextprotocol/clientCapabilities'] ?? {}) as Record<string, unknown>;
  let s: CallStream;
  let done: Promise<Dispatched>;
  let call = req;
  let resumed: ParkedCall | undefined;
  // inputResponses without a requestState resume nothing: the call is a fresh one, and the
  // responses go on to an upstream that speaks 2026-07-28 (which may use or ignore them).
  if (params.requestState !== undefined) {
    const t = d.mrtr.take(params.requestState, lane, callKey);
    if (!t.ok) return rpcErrorData(c, { status: 400, code: ERR.invalidParams, message: `Invalid params: ${t.reason}` }, req.id);
    if ('call' in t) resumed = t.call;
    else {
      // The upstream's own input round: re-issue the call to it with its state and the answers.
      const { requestState: _ours, ...rest } = params;
      call = { ...req, params: { ...rest, ...(t.upstream !== undefined ? { requestState: t.upstream } : {}) } };
    }
  }
  if (resumed) {
    s = resumed.stream;
    done = resumed.done;
    s.caps = caps;
    d.streams.reopen(s);
    const responses = (params.inputResponses ?? {}) as Record<string, Record<string, unknown>>;
    for (const [k, id] of resumed.pending) {
      const r = responses[k];
      d.clientRequests.answer(
        lane,
        MODERN_CALL,
        r ? { id, result: r } : { id, error: { code: ERR.invalidParams, message: `no input response for ${k}` } },
      );
    }
  } else {
    const token = meta.progressToken;
    const wantsLogs = meta['io.modelcontextprotocol/logLevel'] !== undefined;
    s = d.streams.start(lane, typeof token === 'string' || typeof token === 'number' ? token : undefined, false, wantsLogs);
    s.caps = caps;
    done = dispatch(d, lane, withCallToken(call, s)).then((r0) => {
      // A result left as text is read only if it may be the upstream's own input round.
      const r = r0.raw?.mayHave('resultType') ? parsedResult(r0) : r0;
      // An upstream that spoke 2026-07-28 asked for input itself: pass its request through, with
      // its requestState sealed inside ours (bound to this lane and call, one-shot).
      if (r.result?.resultType !== 'input_required') return r;
      return { ...r, result: { ...r.result, requestState: d.mrtr.sealUpstream(lane, callKey, r.result.requestState) } };
    });
  }
  let result: Dispatched | undefined;
  void done.then((r) => {
    result = r;
    s.wake();
  });
  const accepts = (c.req.header('accept') ?? '').includes('text/event-stream');
  const inputRequired = async (): Promise<Record<string, unknown>> => {
    // Requests an upstream sends together reach the front one by one (via its host): gather them
    // until a short quiet gap, so one round carries all of them.
    for (let i = 0, seen = -1; i < 10 && seen !== s.inputs.length; i += 1) {
      seen = s.inputs.length;
      await new Promise((r) => setTimeout(r, 15));
    }
    const pending = new Map<string, string>();
    const inputRequests: Record<string, unknown> = {};
    s.inputs.splice(0).forEach((x, i) => {
      const k = `input-${i + 1}`;
      pending.set(k, x.id);
      inputRequests[k] = { method: x.method, params: x.params };
    });
    d.streams.end(s);
    // If the lane never retries, its upstream call must not hang on unanswered questions.
    const requestState = d.mrtr.park({ lane, callKey, done, stream: s, pending }, () => {
      for (const id of pending.values())
        d.clientRequests.answer(lane, MODERN_CALL, { id, error: { code: ERR.timeout, message: 'the lane did not retry in time' } });
    });
    return { jsonrpc: '2.0', id: req.id, result: { resultType: 'input_required', inputRequests, requestState } };
  };
  for (let guard = 0; guard < 1_000_000; guard += 1) {
    if (result) {
      d.streams.end(s);
      const spliced = result.raw && !result.error ? modernResultText(req.method, result.raw, d.serverInfo) : undefined;
      if (spliced !== undefined)
        return c.body(`{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":${spliced}}`, result.status, {
          'content-type': 'application/json',
        });
      const out = render(parsedResult(result));
      return c.json(out.body, out.status);
    }
    if (s.inputs.length > 0) return c.json(await inputRequired());
    if (s.missingCapability) {
      // Requests sent together arrive a tick apart: answer with the ones the lane can serve, if any.
      await new Promise((r) => setTimeout(r, 30));
      if (s.inputs.length > 0) return c.json(await inputRequired());
      d.streams.end(s);
      const need = s.missingCapability;
      return rpcErrorData(
        c,
        {
          status: 400,
          code: -32021,
          message: `Missing required client capability: ${need}`,
          data: { requiredCapabilities: { [need]: {} } },
        },
        req.id,
      );
    }
    if (s.queue.length > 0 && accepts) break;
    s.queue.length = 0;
    await wake(s);
  }
  return streamSse(c, async (stream) => {
    try {
      await pumpSse(stream, {
        queue: s.queue,
        arm: (w) => {
          s.wake = w;
          if (s.queue.length > 0 || s.inputs.length > 0 || result) w();
        },
        after: () => (result ? render(parsedResult(result)).body : s.inputs.length > 0 ? inputRequired() : undefined),
      });
    } finally {
      if (result) d.streams.end(s);
    }
  });
};
