import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * One HTTP exchange of the lane endpoint, on node:http directly. The MCP endpoint is the front's
 * hot path: through Hono's node adapter each request built web Request/Headers wrappers and each
 * answer a Response, and the adapter's first touch of the web globals loaded Node's whole fetch
 * implementation (undici), about 10 MB of the front's idle memory. The endpoint needs headers in,
 * a JSON or empty answer out, and SSE; this is that. (The operator API and the dashboard still
 * run on Hono, loaded when first asked for.)
 */

/**
 * Runs `fn` once the response has closed (finished, or the client went away), at once if it
 * already has: a handler that waited (for a token check, a fair turn) may find it closed.
 */
export const whenClosed = (out: ServerResponse, fn: () => void): void => {
  if (out.closed || out.destroyed) fn();
  else out.once('close', fn);
};

/** An answer that has been written (or, for SSE, started): what every handler returns. */
export class Replied {
  constructor(readonly status: number) {}
}

export class Exchange {
  /** Request headers, read the way Hono's c.req.header() read them. */
  readonly req = {
    header: (name: string): string | undefined => {
      const v = this.incoming.headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v;
    },
  };

  constructor(
    readonly incoming: IncomingMessage,
    readonly outgoing: ServerResponse,
  ) {}

  /** Writes the whole answer at once; `data` null for an empty body. */
  body(data: string | null, status = 200, headers: Record<string, string> = {}): Replied {
    const out = this.outgoing;
    if (!out.headersSent && !out.destroyed) {
      if (data !== null) headers = { ...headers, 'content-length': String(Buffer.byteLength(data)) };
      out.writeHead(status, headers);
    }
    if (!out.writableEnded) out.end(data ?? undefined);
    return new Replied(status);
  }

  json(value: unknown, status = 200, headers: Record<string, string> = {}): Replied {
    return this.body(JSON.stringify(value), status, { 'content-type': 'application/json', ...headers });
  }

  text(value: string, status = 200, headers: Record<string, string> = {}): Replied {
    return this.body(value, status, { 'content-type': 'text/plain; charset=UTF-8', ...headers });
  }
}
