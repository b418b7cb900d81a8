/**
 * The order a message keeps on the link (rpc/line-writer.ts): a lane's request or notification keeps
 * it among that lane's lines only, so another lane's small call is not held behind a lane's ~4 MB
 * request while it goes out in slices (issue 19). Everything else (a response, the front's own
 * requests, a host's notices, a message without a caller) keeps it among all lines, as before.
 * Pure; read by both ends, on the message as written and as read.
 */
import { isObject } from '../records/atomic.js';
import { JsonText } from '../rpc/json-text.js';
import type { RpcMessage } from '../rpc/jsonrpc.js';
import { LINK, META } from './protocol.js';

/** The order of the front's liveness pings: `~` is never in a lane's name. */
export const PING_ORDER = '~ping';

const laneOf = (caller: unknown): string | undefined =>
  isObject(caller) && typeof caller.lane === 'string' && caller.lane !== '' ? caller.lane : undefined;

/** The lane whose order `msg` keeps, or undefined (every line's). */
export const linkOrderOf = (msg: RpcMessage): string | undefined => {
  if (!('method' in msg)) return undefined;
  // The front's liveness ping measures the host's loop, not the link's queue: it waits for nothing
  // but earlier pings (a key no lane name can be).
  if (msg.method === 'ping') return PING_ORDER;
  const p = msg.params as unknown;
  if (p instanceof JsonText) return p.order;
  if (!isObject(p)) return undefined;
  // A forward's caller block is the front's, beside the lane's body; any other request's is in
  // _meta, where the front writes it over whatever the lane put there.
  if (msg.method === LINK.forward) return laneOf(p[META.caller]);
  // A session's end waits for that lane's lines before it (a call that opens a task), no one else's.
  if (msg.method === LINK.sessionEnded) return laneOf(p);
  return isObject(p._meta) ? laneOf(p._meta[META.caller]) : undefined;
};
