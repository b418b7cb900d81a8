import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { answerClientErrors } from './client-errors.js';

/** A connection must start its first request within this, or it is closed. */
export const FIRST_REQUEST_MS = 10_000;
/** A request's headers must arrive within this of its first byte. */
export const HEADERS_MS = 10_000;
/**
 * A request (headers and body) must arrive within this: a client trickling a body cannot hold a
 * connection of the shared pool for node's default 5 minutes. Responses (SSE) are not limited.
 */
export const REQUEST_MS = 30_000;
/** How often node checks the header and request deadlines (its default, 30 s, adds up to 30 s to each). */
export const CHECK_EVERY_MS = 1_000;

/**
 * The front's connections, one pool for every lane (`gateway.limits.connections`), before anyone
 * is authenticated. Nobody may hold it by doing nothing:
 * - a connection that has not begun a request within FIRST_REQUEST_MS is closed (node itself never
 *   expires a connection that sent no byte), and node's header and request deadlines are checked
 *   every second;
 * - when the pool is full, a new connection takes the place of the one idle the longest (no
 *   request in progress on it: before its first request, or kept alive between requests), so
 *   re-sending a cheap request on thousands of kept-alive connections, or leaving answers unread,
 *   does not lock anyone out. Only when every connection has a request in progress is a new one
 *   refused. Node's own maxConnections stays as a backstop at twice the pool.
 */
export const managePool = (server: Server, size: number, firstRequestMs = FIRST_REQUEST_MS): void => {
  server.maxConnections = size * 2;
  server.requestTimeout = REQUEST_MS;
  server.headersTimeout = HEADERS_MS;
  answerClientErrors(server, REQUEST_MS);
  const open = new Set<Socket>();
  /** Connections with no request in progress, longest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    if (open.size >= size) {
      const oldest = idle.values().next().value;
      if (!oldest) {
        socket.destroy();
        return;
      }
      idle.delete(oldest);
      open.delete(oldest);
      oldest.destroy();
    }
    open.add(socket);
    idle.add(socket);
    const t = setTimeout(() => socket.destroy(), firstRequestMs);
    t.unref();
    timers.set(socket, t);
    socket.once('close', () => {
      clearTimeout(t);
      open.delete(socket);
      idle.delete(socket);
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    clearTimeout(timers.get(socket));
    idle.delete(socket);
    res.once('close', () => {
      if (open.has(socket) && !socket.destroyed) idle.add(socket);
    });
  });
};
