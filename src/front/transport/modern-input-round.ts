import { ERR } from '../../rpc/jsonrpc.js';
import { MODERN_CALL } from '../mcp/client-requests.js';
import type { ModernCall } from './modern-call.js';
import type { McpHttpDeps } from './http-deps.js';

/** How many 15 ms quiet checks an input round waits at most for requests sent together. */
const GATHER_CHECKS = 10;
const GATHER_GAP_MS = 15;

/**
 * An input round of a 2026-07-28 call: the upstream's requests to the client become one
 * `input_required` answer, and the call parks until the lane retries with `inputResponses` and
 * the sealed `requestState` (or, if it never does, the upstream hears a timeout for each).
 */
export const inputRound = async (d: McpHttpDeps, m: ModernCall): Promise<Record<string, unknown>> => {
  const { lane, s } = m;
  // Requests an upstream sends together reach the front one by one (via its host): gather them
  // until a short quiet gap, so one round carries all of them.
  for (let i = 0, seen = -1; i < GATHER_CHECKS && seen !== s.inputs.length; i += 1) {
    seen = s.inputs.length;
    await new Promise((r) => setTimeout(r, GATHER_GAP_MS));
  }
  const pending = new Map<string, string>();
  const inputRequests: Record<string, unknown> = {};
  s.inputs.splice(0).forEach((x, i) => {
    const k = `input-${i + 1}`;
    pending.set(k, x.id);
    inputRequests[k] = { method: x.method, params: x.params };
  });
  d.calls.streams.end(s);
  // If the lane never retries, its upstream call must not hang on unanswered questions.
  const requestState = d.calls.mrtr.park({ lane, callKey: m.callKey, done: m.done, stream: s, pending }, () => {
    for (const id of pending.values())
      d.calls.clientRequests.answer(lane, MODERN_CALL, { id, error: { code: ERR.timeout, message: 'the lane did not retry in time' } });
  });
  return { jsonrpc: '2.0', id: m.req.id, result: { resultType: 'input_required', inputRequests, requestState } };
};
