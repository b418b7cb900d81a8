import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ERR } from '../../rpc/jsonrpc.js';

/** The raw answer node writes itself for each kind of client error (its own defaults, kept). */
const plain = (status: string): string => `HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`;

/** A request that did not arrive whole in time: a 408 a client can read, as every other refusal is. */
export const requestTimeoutAnswer = (deadlineMs: number): string => {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: ERR.invalidRequest,
      message: `The request did not arrive whole within ${deadlineMs / 1000} s (its headers and body): send it at once, not in a trickle`,
      data: { limit: 'the request deadline', value: deadlineMs },
    },
  });
  return `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
};

/**
 * What the front answers a client error node's HTTP parser raises before a handler runs (a bad
 * request, headers too large, the request deadline passed). Node's own answers, except the
 * deadline's: node wrote a bare 408 with no body (attack round 19), where every other limit answers
 * with a JSON-RPC error saying what was exceeded. As node does: only on a connection still writable
 * and whose answer has not begun; then it is closed.
 */
export const answerClientErrors = (server: Server, requestMs: number): void => {
  server.on('clientError', (e: NodeJS.ErrnoException, socket: Socket) => {
    // Node's own test: an answer in flight whose head has gone out to the socket must not be corrupted.
    const inFlight = (socket as Socket & { _httpMessage?: (ServerResponse & { _headerSent?: boolean }) | null })._httpMessage;
    if (e.code !== 'ECONNRESET' && socket.writable && !inFlight?._headerSent) {
      if (e.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.write(requestTimeoutAnswer(requestMs));
      else if (e.code === 'HPE_HEADER_OVERFLOW') socket.write(plain('431 Request Header Fields Too Large'));
      else if (e.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') socket.write(plain('413 Payload Too Large'));
      else socket.write(plain('400 Bad Request'));
    }
    socket.destroy(e);
  });
};
