import type { Readable, Writable } from 'node:stream';
import {
  ERR,
  type Id,
  isNotification,
  isRequest,
  isResponse,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  RpcFailure,
} from './jsonrpc.js';

export interface PeerHandlers {
  /** `signal` aborts when the peer cancels this request (notifications/cancelled). */
  onRequest?: (req: RpcRequest, signal: AbortSignal) => Promise<Record<string, unknown>> | Record<string, unknown>;
  onNotification?: (n: RpcNotification) => void;
  onProtocolError?: (detail: string) => void;
  /** What a pending request is told when the peer's output ends (e.g. "upstream process exited"). */
  endReason?: string;
}

interface Pending {
  resolve: (r: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Longest line accepted from a peer; a longer one is a protocol error, not a memory bomb. */
export const MAX_LINE = 64 * 1024 * 1024;

/**
 * A JSON-RPC peer over newline-delimited JSON streams (MCP's stdio framing). Lean on purpose:
 * it sits on every call's path, twice. Correlates responses, times out requests, and fails
 * every pending request at once when the link closes.
 */
export class LinePeer {
  private nextId = 1;
  private readonly pending = new Map<Id, Pending>();
  /** Requests the peer sent us that are still being answered, cancellable by the peer. */
  private readonly incoming = new Map<Id, AbortController>();
  private buf = '';
  private closed = false;
  private closeReason = 'link closed';

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly handlers: PeerHandlers = {},
  ) {
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.onData(chunk));
    input.on('end', () => this.close(handlers.endReason ?? 'peer closed its output'));
    input.on('error', () => this.close(handlers.endReason ?? 'peer stream error'));
    output.on('error', () => this.close(handlers.endReason ?? 'peer stream error'));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  request(method: string, params?: Record<string, unknown>, timeoutMs = 60_000, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new RpcFailure({ code: ERR.unavailable, message: this.closeReason }));
    if (signal?.aborted) return Promise.reject(new RpcFailure({ code: ERR.cancelled, message: 'request cancelled' }));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const p: Pending = { resolve, reject };
      if (signal) {
        // Cancellation propagates: the peer is told, and stops the work if it can.
        const onAbort = (): void => {
          if (!this.pending.delete(id)) return;
          if (p.timer) clearTimeout(p.timer);
          this.notify('notifications/cancelled', { requestId: id, reason: 'cancelled by the caller' });
          reject(new RpcFailure({ code: ERR.cancelled, message: 'request cancelled' }));
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      if (timeoutMs > 0) {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new RpcFailure({ code: ERR.timeout, message: `${method} timed out after ${timeoutMs} ms` }));
        }, timeoutMs);
      }
      this.pending.set(id, p);
      this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    if (!this.closed) this.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  send(msg: RpcMessage): void {
    if (this.closed) return;
    this.output.write(`${JSON.stringify(msg)}\n`);
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    for (const [, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new RpcFailure({ code: ERR.unavailable, message: reason }));
    }
    this.pending.clear();
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    if (this.buf.length > MAX_LINE && this.buf.indexOf('\n') < 0) {
      this.handlers.onProtocolError?.('line too long');
      this.buf = '';
      return;
    }
    let nl = this.buf.indexOf('\n');
    while (nl >= 0) {
      const line = this.buf.slice(0, nl).trim();
      this.buf = this.buf.slice(nl + 1);
      if (line.length > 0) this.onLine(line);
      nl = this.buf.indexOf('\n');
    }
  }

  private onLine(line: string): void {
    let msg: RpcMessage;
    try {
      msg = JSON.parse(line) as RpcMessage;
    } catch {
      this.handlers.onProtocolError?.('unparseable line');
      return;
    }
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
      else p.resolve(msg.result ?? {});
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
      this.send({ jsonrpc: '2.0', id: req.id, error: { code: ERR.methodNotFound, message: `method not found: ${req.method}` } });
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
