import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** A connection must start its first request within this, or it is closed. */
export const FIRST_REQUEST_MS = 10_000;
/** A request's headers must arrive within this of its first byte. */
export const HEADERS_MS = 10_000;
/** How often node checks the header and request deadlines (its default, 30 s, adds up to 30 s to each). */
export const CHECK_EVERY_MS = 1_000;

/**
 * Connections count against one pool shared by every lane (`gateway.limits.connections`), before
 * anyone is authenticated, so none may sit in it doing nothing: a connection that has not begun a
 * request within FIRST_REQUEST_MS is closed (node itself never expires a connection that sent no
 * byte), and node's own header and request deadlines are checked every second. A connection
 * between requests is node's keep-alive's to close.
 */
export const closeIdleConnections = (server: Server, firstRequestMs = FIRST_REQUEST_MS): void => {
  const waiting = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    const t = setTimeout(() => socket.destroy(), firstRequestMs);
    t.unref();
    waiting.set(socket, t);
    socket.once('close', () => clearTimeout(t));
  });
  server.on('request', (req: { socket: Socket }) => {
    const t = waiting.get(req.socket);
    if (t) {
      clearTimeout(t);
      waiting.delete(req.socket);
    }
  });
};
