/** How a LinePeer (peer.ts) writes a message: as one line, its parts, or the promise of its parts, in its order. */
import type { RpcError, RpcMessage } from './jsonrpc.js';
import { JsonText } from './json-text.js';
import type { LineWriter, OrderKey } from './line-writer.js';
import { turnFirst } from './turn.js';
import { isLargeMessage, pacedStringify } from './paced-stringify.js';
import { charsOf, joinWire, type WireParts } from './parts.js';

/** What a LinePeer's sending side is told (LineOptions). */
export interface SendOptions {
  /** Longest response line sent; a longer answer is replaced by the error this returns. */
  maxSend?: { chars: () => number; error: (chars: number) => RpcError } | undefined;
  /**
   * On a sliced link: the order a request or notification keeps (a lane's name; undefined: every
   * line's). Lines of other keys may pass a long one, both as written and as read (line-writer.ts).
   */
  orderOf?: ((msg: RpcMessage) => OrderKey) | undefined;
}

/** A line as parts this short or shorter is joined and written as one string (the common, small case). */
const JOIN_CHARS = 64 * 1024;

/** One message as a line, or its parts; params given as JSON text go in as they are (never joined when long). */
const lineOf = (msg: RpcMessage): string | WireParts => {
  const params = 'params' in msg ? (msg.params as unknown) : undefined;
  if (!(params instanceof JsonText)) return JSON.stringify(msg);
  const id = 'id' in msg ? `"id":${JSON.stringify(msg.id)},` : '';
  const parts = [`{"jsonrpc":"2.0",${id}"method":${JSON.stringify((msg as { method: string }).method)},"params":`, ...params.parts, '}'];
  return charsOf(parts) <= JOIN_CHARS ? joinWire(parts) : parts;
};

/** Past `maxSend`, a response is replaced by the error the bound names. */
const boundedBy =
  (maxSend: SendOptions['maxSend']) =>
  (msg: RpcMessage, line: string | WireParts): string | WireParts => {
    if (!maxSend || 'method' in msg) return line;
    const chars = typeof line === 'string' ? line.length : charsOf(line);
    return chars <= maxSend.chars() ? line : JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: maxSend.error(chars) });
  };

/** How a LinePeer sends a message: as a line (or its parts, or their promise), in its order. */
export const transmitter = (writer: LineWriter, maxSend: SendOptions['maxSend'], orderOf: SendOptions['orderOf']) => {
  const bounded = boundedBy(maxSend);
  return (msg: RpcMessage, order?: string): void => {
    const response = !('method' in msg);
    const request = 'id' in msg && !response;
    // A request's order comes worked out (RpcEndpoint.call); a notification's is read from it, but
    // a cancellation's is its request's (`order`), which its own line cannot tell the reader: it
    // goes framed, with the key (line-writer.ts).
    const key = response || !orderOf ? undefined : request ? order : (order ?? orderOf(msg));
    const framed = !request && order !== undefined && key !== undefined;
    const id = request ? msg.id : undefined;
    // A large message (a long string, or thousands of values) is serialised in steps (paced-stringify.ts), in its place.
    if (!('params' in msg && msg.params instanceof JsonText) && isLargeMessage(msg)) {
      writer.write(
        pacedStringify(msg, turnFirst).then((parts) => {
          const line = bounded(msg, parts);
          return typeof line === 'string' ? [line] : line;
        }),
        response,
        key,
        false,
        id,
      );
      return;
    }
    writer.write(bounded(msg, lineOf(msg)), response, key, framed, id);
  };
};
