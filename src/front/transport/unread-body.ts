import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** A body at most this long that is still arriving when the answer goes out is read and dropped, and the connection kept. */
export const DRAIN_MAX = 64 * 1024;
/**
 * After a refusal, at most this much more of its body is read (and dropped) while the client reads
 * the answer: twice the default body bound, so a client sending a body up to it finishes sending
 * and reads its answer. Closed with the body still arriving, the connection is reset, and a client
 * still writing loses the answer with it (2 in 30 lost it when 256 KiB were read).
 */
export const LINGER_BYTES = 8 * 1024 * 1024;
/** ...and for at most this long; then the connection is closed. */
export const LINGER_MS = 1000;
/**
 * Bytes of refused bodies the front reads a second, every connection together: past it, a refusal
 * closes its connection at once (the client may then see a reset instead of the answer). Reading
 * costs the front's event loop ~2 ms a MB, so a client looping refused bodies on fresh
 * connections gets at most ~16 ms of it a second, whatever it sends.
 */
export const LINGER_BYTES_PER_S = 8 * 1024 * 1024;

let budget = LINGER_BYTES_PER_S;
let filledAt = Date.now();

/** What is left of the refused-body budget now (refilled at LINGER_BYTES_PER_S, up to one second's worth). */
const budgetLeft = (now = Date.now()): number => {
  budget = Math.min(LINGER_BYTES_PER_S, budget + ((now - filledAt) / 1000) * LINGER_BYTES_PER_S);
  filledAt = now;
  return budget;
};

/**
 * The headers of an answer written while the request's body is still arriving unread (a refusal:
 * a bad token, a full lane, a body over the bound): past DRAIN_MAX, or of unknown length, the
 * connection closes with the answer, after a short linger while the budget allows. Node otherwise
 * reads and drops all of it to keep the connection: a client with no token at all had the front
 * read 4.2 GB in 8 s, and looping 6.5 MB bodies that were each refused held the front's CPU and made
 * every lane's calls 20-100x slower (attack round 17).
 */
export const closeIfUnread = (incoming: IncomingMessage, headers: Record<string, string>): Record<string, string> => {
  if (incoming.complete) return headers;
  const length = incoming.headers['content-length'];
  const chunked = incoming.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || Number(length) <= DRAIN_MAX)) return headers;
  lingerClose(incoming.socket, Math.min(LINGER_BYTES, chunked ? LINGER_BYTES : Number(length)));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'connection') out[k] = v;
  out.connection = 'close';
  return out;
};

const lingering = new WeakSet<Socket>();

/**
 * Closes a connection whose answer says `Connection: close` once the answer is out, after reading
 * and dropping up to `bytes` more of the body (or LINGER_MS passing, or the budget running out), so a client still sending
 * reads the answer rather than a reset (fetch reported a 413 closed at once as "fetch failed").
 * Node's own close for such an answer (destroySoon) came with the body still arriving.
 */
const lingerClose = (socket: Socket, bytes: number): void => {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  // Node calls this once an answer marked `Connection: close` has been written.
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    socket.end();
    // The budget is spent by what is read: with none left, the connection closes at once.
    if (budgetLeft() <= 0) {
      stop();
      return;
    }
    timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    let read = 0;
    // Counted and dropped, never parsed: the HTTP server's reader is taken off (a 'data' listener
    // also hands the socket back to JS from Node's native parser, Node's own wrapper of `on`).
    socket.removeAllListeners('data');
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      budget -= chunk.length;
      if (read >= bytes || budgetLeft() <= 0) stop();
    });
    socket.once('close', () => clearTimeout(timer));
  };
};
