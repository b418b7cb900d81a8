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

/**
 * The error a lane gets for an answer its host will not hold: the lane's other answers are still
 * there (being checked, on their way to the front) and this one would take them past the setting.
 */
export const answersHeld = (server: string, bytes: number, held: number, setting: string, limit: number): RpcError => ({
  code: ERR.tooLarge,
  message: `The answer of server "${server}" (${bytes} bytes) was refused: this lane's answers still being checked in its host hold ${held} bytes, and ${setting} is ${limit}. Make fewer large calls at once, or raise ${setting}`,
  data: { limit: setting, value: limit, bytes, held, server },
});
