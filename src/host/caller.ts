import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import { CALLER_META } from '../link/config.js';
import type { Era } from '../upstream/conn.js';

type Params = Record<string, unknown>;

/** Who is calling, as the front states it in the caller block of a request to a host. */
export interface Caller {
  lane: string;
  /** The era of the lane's request (legacy if unsaid). */
  era: Era;
  /** The lane's holder (a session, a listen stream) that made it; resource subscriptions are its. */
  holder: string;
  /** A 2026-07-28 tools/call's Mcp-Param-* headers, to check against the tool's schema. */
  headers?: Record<string, string>;
}

/**
 * Reads the caller block and checks that this host serves that lane (a per-lane host serves only
 * its own). Pure. The front authenticated the lane; the host still never serves a lane it was not given.
 */
export const readCaller = (params: Params, lanes: Record<string, unknown>, onlyLane: string | undefined): Caller => {
  const c = ((params._meta as Params | undefined)?.[CALLER_META] ?? {}) as {
    lane?: unknown;
    era?: unknown;
    holder?: unknown;
    headers?: unknown;
  };
  const lane = typeof c.lane === 'string' ? c.lane : '';
  if (!Object.hasOwn(lanes, lane) || (onlyLane !== undefined && onlyLane !== lane)) {
    throw new RpcFailure({ code: ERR.notInCatalog, message: 'caller lane is not served by this host' });
  }
  const headers =
    c.headers !== null && typeof c.headers === 'object' && !Array.isArray(c.headers)
      ? Object.fromEntries(Object.entries(c.headers as Params).filter((e): e is [string, string] => typeof e[1] === 'string'))
      : undefined;
  return {
    lane,
    era: c.era === 'modern' ? 'modern' : 'legacy',
    holder: typeof c.holder === 'string' ? c.holder : '',
    ...(headers ? { headers } : {}),
  };
};
