import {
  ERR,
  type Id,
  isNotification,
  isRequest,
  isResponse,
  type RpcError,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  RpcFailure,
} from './jsonrpc.js';
import type { FailureKind } from '../errors.js';
import { RawResult } from './raw.js';
import type { JsonText } from './json-text.js';
import type { WireParts } from './parts.js';
import { shownName } from '../log/escape.js';

const TIMED_OUT_HERE = 'lanegate/timed-out-here';
/** Whether a timeout is this endpoint's own (no answer came in time), not one the peer reported. */
export const isLinkTimeout = (e: { data?: unknown }): boolean =>
  typeof e.data === 'object' && e.data !== null && (e.data as Record<string, unknown>)[TIMED_OUT_HERE] === true;

/** Made here only, when a request of ours got no answer in time: a peer's answer (whatever its `data`) never is one. */
class LinkTimeout extends RpcFailure {}

/** The failure of a request of ours that got no answer within `ms`. */
export const linkTimeout = (method: string, ms: number): RpcFailure =>
  new LinkTimeout({ code: ERR.timeout, message: `${method} timed out after ${ms} ms`, data: { [TIMED_OUT_HERE]: true } });

/** Whether `e` is a request of ours that got no answer in time (never a timeout the peer answered with, even one that copies our marker). */
export const unansweredInTime = (e: unknown): boolean => e instanceof LinkTimeout;

export interface PeerHandlers {
  /** `signal` aborts when the peer cancels this request (notifications/cancelled). */
  onRequest?: (req: RpcRequest, signal: AbortSignal) => Promise<Record<string, unknown>> | Record<string, unknown>;
  onNotification?: (n: RpcNotification) => void;
  onProtocolError?: (detail: string) => void;
  /** What a pending request is told when the peer's output ends (e.g. "upstream process exited"). */
  endReason?: string;
  /** What the peer's output ending means, as data (a child's: it crashed); the pending requests' failures carry it. */
  endKind?: FailureKind;
  /**
   * What the output's end waits for before the pending requests are failed (a child's exit, which
   * its closed stdout usually precedes by a moment): whoever the failure reaches then sees the
   * end already accounted for (lanegate_status says "missing", not "serving"). Waited for at most
   * END_SETTLE_MS: an output closed by a process that lives on still fails its requests.
   */
  endSettles?: Promise<unknown>;
  /** A request of ours ended without an answer (cancelled or timed out): a transport may drop its exchange. */
  onAbandon?: (id: Id) => void;
}

interface Pending {
  /** The requester takes the result as text (RawResult) rather than a parsed object. */
  raw?: true;
  resolve: (r: Record<string, unknown> | RawResult) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
  /** The order the request kept on its transport (orderOfRequest): its cancellation keeps the same. */
  order?: string;
}

/**
 * The JSON-RPC protocol layer, whatever carries the messages: correlation of responses to
 * requests, timeouts, cancellation both ways (notifications/cancelled), answering the peer's
 * requests, and failing every pending request at once when the link closes. A transport gives it
 * a way to send and calls `receive` for each message it gets (NDJSON lines over stdio in
 * LinePeer, POST bodies and SSE events in the HTTP upstream client).
 */
export class RpcEndpoint {
  private nextId = 1;
  private readonly pending = new Map<Id, Pending>();
  /** Requests the peer sent us that are still being answered, cancellable by the peer. */
  private readonly incoming = new Map<Id, AbortController>();
  private closed = false;
  private closeReason = 'link closed';
  private closeKind: FailureKind | undefined;

  constructor(
    /**
     * Sends one message. A rejection for a request fails that request (e.g. an HTTP error).
     * `order`: the order it keeps on the transport when the sender knows it (orderOfRequest): a
     * request's own, worked out once, and its cancellation's, which is its request's.
     */
    private readonly transmit: (msg: RpcMessage, order?: string) => void | Promise<void>,
    protected readonly handlers: PeerHandlers = {},
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  request(method: string, params?: Record<string, unknown>, timeoutMs = 60_000, signal?: AbortSignal): Promise<Record<string, unknown>> {
    return this.call(method, params, timeoutMs, signal, false) as Promise<Record<string, unknown>>;
  }

  /**
   * As `request`, with the result as the text the peer sent (parsed only if the transport had to).
   * Params may be JSON text, for a transport that writes lines (LinePeer) to send as they are.
   */
  requestRaw(method: string, params?: Record<string, unknown> | JsonText, timeoutMs = 60_000, signal?: AbortSignal): Promise<RawResult> {
    return this.call(method, params, timeoutMs, signal, true) as Promise<RawResult>;
  }

  private call(
    method: string,
    params: Record<string, unknown> | JsonText | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    raw: boolean,
  ): Promise<Record<string, unknown> | RawResult> {
    if (this.closed) return Promise.reject(new RpcFailure({ code: ERR.unavailable, message: this.closeReason }, this.closeKind));
    if (signal?.aborted) return Promise.reject(new RpcFailure({ code: ERR.cancelled, message: 'request cancelled' }));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // Cancellation propagates: the peer is told, and stops the work if it can.
      const onAbort = (): void => {
        if (!this.pending.delete(id)) return;
        if (p.timer) clearTimeout(p.timer);
        this.letGo(id, p.order, 'cancelled by the caller');
        reject(new RpcFailure({ code: ERR.cancelled, message: 'request cancelled' }));
      };
      // However the request ends, the caller's signal lets go of it (a signal that outlives many
      // requests must not collect a listener per request).
      const done =
        <T>(settle: (v: T) => void) =>
        (v: T): void => {
          signal?.removeEventListener('abort', onAbort);
          settle(v);
        };
      const p: Pending = raw ? { raw, resolve: done(resolve), reject: done(reject) } : { resolve: done(resolve), reject: done(reject) };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs > 0) {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          // The spec: a sender whose request timed out SHOULD cancel it, so the peer's work stops
          // (attack round 16: a timed-out call's work ran on upstream).
          this.letGo(id, p.order, `timed out after ${timeoutMs} ms`);
          p.reject(linkTimeout(method, timeoutMs));
        }, timeoutMs);
      }
      const msg: RpcMessage = { jsonrpc: '2.0', id, method, ...(params ? { params: params as Record<string, unknown> } : {}) };
      const order = this.orderOfRequest(msg);
      if (order !== undefined) p.order = order;
      this.pending.set(id, p);
      this.sendRequest(id, msg, order);
    });
  }

  /**
   * A request of ours given up on (cancelled or timed out). One the transport has not begun to send
   * is withdrawn: the peer never sees it, and nothing is left to cancel (attack round 14: aborted
   * 4 MB requests piled up on a host's link and refused every lane's calls). Else the peer is told,
   * in the request's order: on a link with orders it waits behind its request, not every lane's.
   */
  private letGo(id: Id, order: string | undefined, reason: string): void {
    if (!this.withdraw(id)) this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }, order);
    this.handlers.onAbandon?.(id);
  }

  /** Whether a request of ours still waits for its answer. */
  isPending(id: Id): boolean {
    return this.pending.has(id);
  }

  notify(method: string, params?: Record<string, unknown>): void {
    if (!this.closed) this.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  /** Takes back a request of ours whose message the transport has not begun to send; false when it has (or cannot tell). */
  protected withdraw(_id: Id): boolean {
    return false;
  }

  /**
   * The order a request of ours keeps on the transport, if it has orders (LinePeer on a link: the
   * lane's); its cancellation is sent in the same. None by default.
   */
  protected orderOfRequest(_msg: RpcMessage): string | undefined {
    return undefined;
  }

  /** Sends at once, in order (a notification sent before a request arrives before it); `order` as transmit's. */
  send(msg: RpcMessage, order?: string): void {
    if (this.closed) return;
    try {
      const sent = this.transmit(msg, order);
      if (sent instanceof Promise) sent.catch(() => undefined);
    } catch {
      // A transport that cannot send has closed or will: the close path fails what is pending.
    }
  }

  private sendRequest(id: Id, msg: RpcMessage, order: string | undefined): void {
    let sent: void | Promise<void>;
    try {
      sent = this.transmit(msg, order);
    } catch (e) {
      sent = Promise.reject(e);
    }
    if (sent instanceof Promise)
      sent.catch((e: unknown) => {
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        if (p.timer) clearTimeout(p.timer);
        p.reject(e instanceof RpcFailure ? e : new RpcFailure({ code: ERR.unavailable, message: 'could not send the request' }));
      });
  }

  /** Ends the link: every pending request fails with `reason`, and with `kind` when the closer knows what happened. */
  close(reason: string, kind?: FailureKind): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    this.closeKind = kind;
    for (const [, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new RpcFailure({ code: ERR.unavailable, message: reason }, kind));
    }
    this.pending.clear();
  }

  /** Fails a request of ours that waits for its answer (the answer could not be read); false if none waits. */
  fail(id: Id, error: RpcError): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    p.reject(new RpcFailure(error));
    return true;
  }

  /**
   * A result whose text a transport read without parsing the message: taken if a raw request
   * waits for that id (true), else left to the transport to parse and `receive` (false).
   */
  receiveRaw(id: number, text: string | WireParts): boolean {
    const p = this.pending.get(id);
    if (!p?.raw) return false;
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    p.resolve(new RawResult(text));
    return true;
  }

  /** One message from the peer: a response settles its request, a request is answered, a notification is handed on. */
  receive(msg: RpcMessage): void {
    if (typeof msg !== 'object' || msg === null) {
      this.handlers.onProtocolError?.('not a JSON-RPC object');
      return;
    }
    if (isResponse(msg)) {
      const p = msg.id === null ? undefined : this.pending.get(msg.id);
      if (!p || msg.id === null) return;
      this.pending.delete(msg.id);
      if (p.timer) clearTimeout(p.timer);
      if (msg.error) p.reject(new RpcFailure(msg.error));
      else p.resolve(p.raw ? RawResult.of(msg.result ?? {}) : (msg.result ?? {}));
    } else if (isRequest(msg)) {
      void this.answer(msg);
    } else if (isNotification(msg)) {
      if (msg.method === 'notifications/cancelled') {
        const rid = (msg.params as { requestId?: Id } | undefined)?.requestId;
        if (rid !== undefined) this.incoming.get(rid)?.abort();
      }
      this.handlers.onNotification?.(msg);
    }
  }

  private async answer(req: RpcRequest): Promise<void> {
    const h = this.handlers.onRequest;
    if (!h) {
      this.send({ jsonrpc: '2.0', id: req.id, error: { code: ERR.methodNotFound, message: `method not found: ${shownName(req.method)}` } });
      return;
    }
    const ac = new AbortController();
    this.incoming.set(req.id, ac);
    try {
      const result = await h(req, ac.signal);
      if (!ac.signal.aborted) this.send({ jsonrpc: '2.0', id: req.id, result });
    } catch (e) {
      const rpc = e instanceof RpcFailure ? e.rpc : { code: ERR.internal, message: e instanceof Error ? e.message : 'internal error' };
      if (!ac.signal.aborted) this.send({ jsonrpc: '2.0', id: req.id, error: rpc });
    } finally {
      this.incoming.delete(req.id);
    }
  }
}
