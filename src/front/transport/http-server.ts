import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHECK_EVERY_MS, managePool } from './connection-pool.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  /** gateway.limits.connections. */
  connections: number;
  /** The largest body /mcp accepts, read at each request (a reload may change it). */
  maxBodyBytes: () => number;
  /** Resolves when the Authorization header holds a valid lane token. */
  authenticate: (authorization: string | undefined) => Promise<unknown>;
}

/**
 * The front's HTTP server, listening: its connections pooled and bounded, and `Expect:
 * 100-continue` on /mcp answered only once the token checks out. Resolves with the server and the
 * port it got (a port of 0 asks for any free one).
 */
export const openHttpServer = async (app: RequestListener, o: HttpServerOptions): Promise<{ server: Server; port: number }> => {
  const server = createServer({ connectionsCheckingInterval: CHECK_EVERY_MS }, app);
  // `Expect: 100-continue` on /mcp: the client is told to send its body only after its token
  // checks out. A bad token gets no 100; the handler then refuses it as any other (401).
  server.on('checkContinue', (req, res) => {
    const go = (): void => void server.emit('request', req, res);
    if (!(req.url ?? '').startsWith('/mcp')) {
      res.writeContinue();
      go();
      return;
    }
    // A body that could never be accepted gets its 413 without being invited (attack round 6).
    if (Number(req.headers['content-length']) > o.maxBodyBytes()) {
      go();
      return;
    }
    o.authenticate(req.headers.authorization).then(() => {
      res.writeContinue();
      go();
    }, go);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve((server.address() as AddressInfo).port));
  });
  managePool(server, o.connections);
  return { server, port };
};
