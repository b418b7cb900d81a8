import { isListMethod } from '../../link/lists.js';
import { MODERN_META } from '../../upstream/conn.js';

/** Results of the stateless era carry resultType, and cacheable ones ttlMs + cacheScope. */
export const modernResult = (
  method: string,
  result: Record<string, unknown>,
  serverInfo: Record<string, unknown>,
): Record<string, unknown> => {
  const out: Record<string, unknown> = { resultType: 'complete', ...result };
  if (isListMethod(method) || method === 'server/discover' || method === 'resources/read') {
    out.ttlMs = typeof result.ttlMs === 'number' ? result.ttlMs : 0;
    out.cacheScope = 'private';
  }
  const meta = (out._meta as Record<string, unknown> | undefined) ?? {};
  out._meta = { ...meta, [MODERN_META.serverInfo]: serverInfo };
  return out;
};
