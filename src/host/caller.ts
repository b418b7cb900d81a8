import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import { CALLER_META } from '../link/config.js';
import type { CallerBlock } from '../link/forward.js';

type Params = Record<string, unknown>;

/** Who is calling: the caller block the front writes (link/forward.ts), as the host reads it. */
export type Caller = CallerBlock;

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
