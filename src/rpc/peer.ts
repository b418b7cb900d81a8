import type { Readable, Writable } from 'node:stream';
import { type PeerHandlers, RpcEndpoint } from './endpoint.js';
import type { RpcMessage } from './jsonrpc.js';
import { rawResultLine } from './raw.js';
import { JsonText } from './json-text.js';

/** Longest line accepted from a peer; a longer one is a protocol error, not a memory bomb. */
export const MAX_LINE = 64 * 1024 * 1024;

/** One message as a line; params given as JSON text go in as they are. */
const lineOf = (msg: RpcMessage): string => {
  const params = 'params' in msg ? (msg.params as unknown) : undefined;
  if (!(params instanceof JsonText)) return JSON.stringify(msg);
  const id = 'id' in msg ? `"id":${JSON.stringify(msg.id)},` : '';
  return `{"jsonrpc":"2.0",${id}"method":${JSON.stringify((msg as { method: string }).method)},"params":${params.json}}`;
};

/**
 * A JSON-RPC peer over newline-delimited JSON streams (MCP's stdio framing): the protocol layer
 * (RpcEndpoint) over one parse per line. Lean on purpose: it sits on every call's path, twice.
 */
export class LinePeer extends RpcEndpoint {
  private buf = '';

  constructor(input: Readable, output: Writable, handlers: PeerHandlers = {}) {
    super((msg: RpcMessage) => {
      output.write(`${lineOf(msg)}\n`);
    }, handlers);
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.onData(chunk));
    input.on('end', () => this.close(handlers.endReason ?? 'peer closed its output'));
    input.on('error', () => this.close(handlers.endReason ?? 'peer stream error'));
    output.on('error', () => this.close(handlers.endReason ?? 'peer stream error'));
  }

  /**
   * Splits the stream into lines, scanning each chunk once: a chunk without a line end only
   * extends the partial line (a long message arriving in many chunks is not rescanned per chunk).
   */
  private onData(chunk: string): void {
    let nl = chunk.indexOf('\n');
    if (nl < 0) {
      this.buf += chunk;
      if (this.buf.length > MAX_LINE) {
        this.handlers.onProtocolError?.('line too long');
        this.buf = '';
      }
      return;
    }
    let line = this.buf + chunk.slice(0, nl);
    let start = nl + 1;
    for (;;) {
      line = line.trim();
      if (line.length > 0) this.onLine(line);
      nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      line = chunk.slice(start, nl);
      start = nl + 1;
    }
    this.buf = chunk.slice(start);
  }

  private onLine(line: string): void {
    // A result for a raw request goes on as text: no parse on this hop.
    const raw = rawResultLine(line);
    if (raw && this.receiveRaw(raw.id, raw.text)) return;
    let msg: RpcMessage;
    try {
      msg = JSON.parse(line) as RpcMessage;
    } catch {
      this.handlers.onProtocolError?.('unparseable line');
      return;
    }
    this.receive(msg);
  }
}
