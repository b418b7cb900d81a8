import { clearQueue } from './sse-pump.js';
import type { RpcRequest } from '../../rpc/jsonrpc.js';
import type { Dispatched } from '../mcp/dispatch.js';
import type { CallStream } from './call-streams.js';

/** One 2026-07-28 call as one HTTP request answers it (a fresh call, or a parked one resumed). */
export interface ModernCall {
  readonly lane: string;
  readonly req: RpcRequest;
  /** What the call is (method and target): a requestState is bound to it. */
  readonly callKey: string;
  readonly s: CallStream;
  readonly done: Promise<Dispatched>;
  /** Set when `done` settles. */
  result?: Dispatched;
}

/** What this request answers with, as soon as one holds (in this order). */
export type Turn = { kind: 'result'; result: Dispatched } | { kind: 'input' } | { kind: 'missing'; need: string } | { kind: 'stream' };

const turnOf = (m: ModernCall, accepts: boolean): Turn | undefined => {
  if (m.result) return { kind: 'result', result: m.result };
  if (m.s.inputs.length > 0) return { kind: 'input' };
  if (m.s.missingCapability) return { kind: 'missing', need: m.s.missingCapability };
  if (m.s.queue.length > 0 && accepts) return { kind: 'stream' };
  return undefined;
};

/**
 * Waits, woken by the call stream (no polling, no loop), for the first turn that decides the
 * answer. A notification that comes while the client takes no stream is dropped.
 */
export const nextTurn = (m: ModernCall, accepts: boolean): Promise<Turn> =>
  new Promise<Turn>((resolve) => {
    let decided = false;
    const check = (): void => {
      if (decided) return;
      const t = turnOf(m, accepts);
      if (t === undefined) {
        clearQueue(m.s.queue);
        return;
      }
      decided = true;
      resolve(t);
    };
    m.s.wake = () => queueMicrotask(check);
    check();
  });
