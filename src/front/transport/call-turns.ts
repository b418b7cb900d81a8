import { ERR } from '../../rpc/jsonrpc.js';
import type { CancellableCall } from '../mcp/call-context.js';
import type { Dispatched } from '../mcp/dispatch-types.js';
import type { Exchange, Replied } from './exchange.js';
import type { McpHttpDeps } from './http-deps.js';
import { CANCELLED_WAITING, takeAnswerTurn, takeTurn, type Waiter } from './request-gate.js';

/**
 * A call's turns (weighed by its lane's recent answers, then its lane's fair share of calls), with
 * the call cancellable while it waits: it is in the correlation table while it waits, so a lane's
 * notifications/cancelled, its session's end (DELETE, idle, eviction, a revoked token) or a reload
 * that removes the lane reaches it as it reaches a call in flight, and it is answered cancelled
 * without ever running. (Attack round 9: a call waiting for its turn was acknowledged cancelled,
 * 202, and then ran to its end; a DELETE left it to run as well.)
 */
export const takeTurns = async (
  c: Exchange,
  d: McpHttpDeps,
  x: CancellableCall,
  render: (r: Dispatched) => { status: number; body: Record<string, unknown> },
): Promise<Replied | undefined> => {
  // Reachable by the lane's cancellation only while it waits: a call that runs at once costs nothing here.
  const w: Waiter = {
    id: x.id,
    signal: x.abort.signal,
    waiting: () => {
      d.calls.track(x);
      return () => d.calls.release(x);
    },
  };
  const got = (await takeAnswerTurn(c, d, x.lane, w)) ?? (await takeTurn(c, d, x.lane, w));
  if (got !== CANCELLED_WAITING) return got;
  const out = render({ status: 200, error: { code: ERR.cancelled, message: 'request cancelled' } });
  return c.json(out.body, out.status as 200);
};
