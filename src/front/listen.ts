import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ERR, type RpcRequest } from '../rpc/jsonrpc.js';
import type { McpHttpDeps } from './http-deps.js';
import type { ListenFilter } from './sessions.js';

/**
 * `subscriptions/listen` (2026-07-28): an SSE stream that first acknowledges the honored subset of
 * the requested filter, then carries the lane's own list changes, each tagged with the
 * subscription id. With nothing honored it completes at once.
 */
export const listen = (c: Context, d: McpHttpDeps, lane: string, req: RpcRequest, serverInfo: Record<string, unknown>): Response => {
  const requested = (req.params?.notifications ?? undefined) as Record<string, unknown> | undefined;
  if (!requested || typeof requested !== 'object') {
    return c.json({
      jsonrpc: '2.0',
      id: req.id,
      error: { code: ERR.invalidParams, message: "Invalid params: 'notifications' is required" },
    });
  }
  const honored: ListenFilter = {};
  if (requested.toolsListChanged === true) honored.toolsListChanged = true;
  if (requested.promptsListChanged === true) honored.promptsListChanged = true;
  if (requested.resourcesListChanged === true) honored.resourcesListChanged = true;
  const tag = (params: Record<string, unknown> = {}): Record<string, unknown> => ({
    ...params,
    _meta: { ...((params._meta as Record<string, unknown> | undefined) ?? {}), 'io.modelcontextprotocol/subscriptionId': req.id },
  });
  return streamSSE(c, async (stream) => {
    await stream.writeSSE({
      event: 'message',
      data: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: tag({ notifications: honored }) }),
    });
    if (Object.keys(honored).length === 0) {
      await stream.writeSSE({
        event: 'message',
        data: JSON.stringify({
          jsonrpc: '2.0',
          id: req.id,
          result: { resultType: 'complete', _meta: tag({ 'io.modelcontextprotocol/serverInfo': serverInfo })._meta },
        }),
      });
      return;
    }
    const queue: Record<string, unknown>[] = [];
    let wakeUp: () => void = () => undefined;
    const stop = d.sessions.listen(lane, honored, (m) => {
      queue.push({ jsonrpc: '2.0', method: m.method, params: tag((m.params as Record<string, unknown> | undefined) ?? {}) });
      wakeUp();
    });
    try {
      for (let guard = 0; guard < 10_000_000 && !stream.aborted; guard += 1) {
        while (queue.length > 0) await stream.writeSSE({ event: 'message', data: JSON.stringify(queue.shift()) });
        const timedOut = await new Promise<boolean>((r) => {
          wakeUp = () => r(false);
          setTimeout(() => r(true), 25_000).unref();
        });
        if (timedOut && queue.length === 0) await stream.write(': keep-alive\n\n');
      }
    } finally {
      stop();
    }
  });
};
