import { ERR, RpcFailure } from '../../rpc/jsonrpc.js';

interface Waiting {
  lane: string;
  resolve: (r: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Requests an upstream makes of a lane's client (sampling, elicitation, roots), relayed on the
 * stream of that lane's call (or its GET stream). The answer is accepted only from the same lane:
 * ids are gateway-made and unguessable, and another lane's POST of that id is ignored.
 */
export class ClientRequests {
  private readonly waiting = new Map<string, Waiting>();
  private next = 1;

  ask(
    lane: string,
    method: string,
    params: Record<string, unknown>,
    deliver: (msg: Record<string, unknown>) => boolean,
    timeoutMs = 300_000,
  ): Promise<Record<string, unknown>> {
    const id = `lg-${this.next++}-${Math.random().toString(36).slice(2, 10)}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new RpcFailure({ code: ERR.timeout, message: `the lane did not answer ${method}` }));
      }, timeoutMs);
      this.waiting.set(id, { lane, resolve, reject, timer });
      if (!deliver({ jsonrpc: '2.0', id, method, params })) {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(new RpcFailure({ code: ERR.methodNotFound, message: `lane has no open stream on which to ask ${method}` }));
      }
    });
  }

  /** A JSON-RPC response POSTed by a lane. Returns whether it answered one of its own requests. */
  answer(lane: string, msg: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } }): boolean {
    const id = typeof msg.id === 'string' ? msg.id : undefined;
    const w = id === undefined ? undefined : this.waiting.get(id);
    if (!w || w.lane !== lane || id === undefined) return false;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    if (msg.error) w.reject(new RpcFailure({ code: msg.error.code, message: msg.error.message }));
    else w.resolve(msg.result ?? {});
    return true;
  }
}
