import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

/**
 * A client that sends one request and never reads its answer past the status line: the socket is
 * paused at the first bytes, so the kernel's buffers fill and the gateway is left holding the rest
 * (or not). `status` resolves with the HTTP status, or 0 if the connection closed first.
 */
export const unreadPost = (
  url: URL,
  headers: Record<string, string>,
  body: string,
): { socket: Socket; status: Promise<number>; closed: Promise<void> } => {
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  const head = [
    `POST ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    'content-type: application/json',
    'accept: application/json, text/event-stream',
    `content-length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  socket.write(head);
  socket.write(body);
  const status = new Promise<number>((resolve) => {
    socket.once('data', (b: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(b.toString('latin1', 0, 64))?.[1] ?? 0));
    });
    socket.once('close', () => resolve(0));
    socket.once('error', () => resolve(0));
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, status, closed };
};

/** A process's resident memory now and at its peak (VmRSS, VmHWM), in MB (Linux). */
export const rssOf = (pid: number): { rss: number; peak: number } => {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
};
