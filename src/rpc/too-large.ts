import { ERR, type RpcError } from './jsonrpc.js';

/**
 * The error a lane gets for an answer over gateway.limits.resultBytes: it names the setting, the
 * server and the size, at once (the host stops reading the answer when it passes the bound).
 */
export const resultTooLarge = (server: string, bytes: number, limit: number): RpcError => ({
  code: ERR.tooLarge,
  message: `The answer of server "${server}" is ${bytes} bytes, over gateway.limits.resultBytes (${limit}): ask for less (a narrower query, a page), or raise gateway.limits.resultBytes`,
  data: { limit: 'gateway.limits.resultBytes', value: limit, bytes, server },
});
