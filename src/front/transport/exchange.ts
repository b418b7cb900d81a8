import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hold } from './send-budget.js';
import type { BodyHead } from './body.js';
import { PACE_SLICE, writePaced } from './paced-write.js';
import { charsOf, joinWire, type WireParts } from '../../rpc/parts.js';
import { restoreExactIds, STAND_IN_MARK } from './big-ids.js';
import { partsInclude } from '../../rpc/parts-text.js';
import { ERR } from '../../rpc/jsonrpc.js';
import { closeIfUnread } from './unread-body.js';

/**
 * One HTTP exchange of the lane endpoint, on node:http directly. The MCP endpoint is the front's
 * hot path: through Hono's node adapter each request built web Request/Headers wrappers and each
 * answer a Response, and the adapter's first touch of the web globals loaded Node's whole fetch
 * implementation (undici), about 10 MB of the front's idle memory. The endpoint needs headers in,
 * a JSON or empty answer out, and SSE; this is that. (The operator API and the dashboard still
 * run on Hono, loaded when first asked for.)
 */

/** What runs when a response closes, in the order it was asked for: one 'close' listener each. */
const onClose = new WeakMap<ServerResponse, (() => void)[]>();

/**
 * Runs `fn` once the response has closed (finished, or the client went away), at once if it
 * already has: a handler that waited (for a token check, a fair turn) may find it closed. A call
 * asks for several (its lane's request count, its fair turn, its tracking, its byte hold): they
 * share ONE listener on the response, so a busy call never nears node's listener warning (eleven
 * 'close' listeners on one response were seen under a flood of large answers).
 */
export const whenClosed = (out: ServerResponse, fn: () => void): void => {
  if (out.closed || out.destroyed) {
    fn();
    return;
  }
  const waiting = onClose.get(out);
  if (waiting) {
    waiting.push(fn);
    return;
  }
  const fns = [fn];
  onClose.set(out, fns);
  out.once('close', () => {
    onClose.delete(out);
    // Each runs even if one before it throws (a release must never be skipped); the first error surfaces after.
    let failed: unknown;
    for (const f of fns) {
      try {
        f();
      } catch (e) {
        failed ??= e;
      }
    }
    if (failed !== undefined) throw failed;
  });
};

/** An answer that has been written (or, for SSE, started): what every handler returns. */
export class Replied {
  constructor(readonly status: number) {}
}

/** How a lane's large answers are written: held against its byte budget, paced, dropped when stalled. */
export interface Pace {
  /** Holds `bytes` of unsent answer for this lane (and this connection's `held`). */
  hold: (bytes: number, held: number) => Hold;
  stallMs: () => number;
}

/** The id at the head of an answer lanegate wrote (`{"jsonrpc":"2.0","id":…`), as JSON text. */
const answerId = (text: string): string =>
  /^\{"jsonrpc":"2\.0","id":(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"|null)[,}]/.exec(text.slice(0, 4096))?.[1] ?? 'null';

export class Exchange {
  /** Set once the lane is known: its large answers go out paced and held against its budget. */
  pace: Pace | undefined;
  /** The request's id stood in for an integer beyond 2^53: answers get its digits back (big-ids.ts). */
  exactIds = false;
  /** The first bytes of a chunked body, read to tell whether it is large (request-gate.ts takeByteTurn). */
  bodyHead: BodyHead | undefined;

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

  /** Writes the whole answer (paced if large); `data` null for an empty body. */
  body(given: string | WireParts | null, status = 200, headers: Record<string, string> = {}): Replied {
    const out = this.outgoing;
    // Parts (a head, an upstream's long result, a tail) are joined only when written at once.
    let parts = given === null ? null : typeof given === 'string' ? [given] : given;
    // A stand-in may sit across two parts of a long result: joined then, and only then (rare: a lane's id past 2^53).
    if (this.exactIds && parts)
      parts =
        parts.length > 1 && (partsInclude(parts, STAND_IN_MARK) || parts.some((p) => typeof p !== 'string'))
          ? [restoreExactIds(joinWire(parts))]
          : parts.map((p) => restoreExactIds(p as string));
    if (parts && this.pace && !out.headersSent && charsOf(parts) > PACE_SLICE) return this.paced(this.pace, parts, status, headers);
    const data = parts === null ? null : joinWire(parts);
    if (!out.headersSent && !out.destroyed) {
      if (data !== null) headers = { ...headers, 'content-length': String(Buffer.byteLength(data)) };
      out.writeHead(status, closeIfUnread(this.incoming, headers));
    }
    if (!out.writableEnded) out.end(data ?? undefined);
    return new Replied(status);
  }

  /**
   * A large answer: held against the lane's unsent-bytes budget (refused with a small error naming
   * the setting when over it), then written a slice at a time; the hold ends when the socket has
   * taken the last byte or the connection closed.
   */
  private paced(p: Pace, data: WireParts, status: number, headers: Record<string, string>): Replied {
    const out = this.outgoing;
    const chars = charsOf(data);
    const held = p.hold(chars, 0);
    if (!held.ok) {
      const lane = held.setting.endsWith('PerLane');
      const message = `The answer (${chars} bytes) was not sent: ${lane ? "this lane's clients have" : 'clients have'} ${held.held} bytes of answers they have not read yet, and ${held.setting} is ${held.limit}. Read (or close) earlier answers first, or raise ${held.setting}`;
      const err = `{"jsonrpc":"2.0","id":${answerId(typeof data[0] === 'string' ? data[0] : '')},"error":${JSON.stringify({ code: ERR.tooLarge, message, data: { limit: held.setting, value: held.limit } })}}`;
      return this.body(err, lane ? 429 : 503, { 'content-type': 'application/json', 'retry-after': '1' });
    }
    whenClosed(out, held.release);
    out.once('finish', held.release);
    let bytes = 0;
    for (const part of data) bytes += Buffer.byteLength(part);
    out.writeHead(status, closeIfUnread(this.incoming, { ...headers, 'content-length': String(bytes) }));
    void writePaced(out, data, p.stallMs()).then((ok) => {
      if (ok && !out.writableEnded) out.end();
    });
    return new Replied(status);
  }

  json(value: unknown, status = 200, headers: Record<string, string> = {}): Replied {
    return this.body(JSON.stringify(value), status, { 'content-type': 'application/json', ...headers });
  }

  text(value: string, status = 200, headers: Record<string, string> = {}): Replied {
    return this.body(value, status, { 'content-type': 'text/plain; charset=UTF-8', ...headers });
  }
}
