import type { Exchange, Replied } from './exchange.js';
import { streamSse } from './sse-stream.js';
import { pumpQueue, pumpSse } from './sse-pump.js';
import { modernResult } from './modern-result.js';
import { randomUUID } from 'node:crypto';
import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { changeResources, MAX_RESOURCE_SUBSCRIPTIONS } from '../mcp/resource-holders.js';
import type { McpHttpDeps } from './http-deps.js';
import type { ListenFilter } from '../mcp/sessions.js';
import type { LaneClaims } from '../../auth/tokens.js';

/**
 * `subscriptions/listen` (2026-07-28): an SSE stream that first acknowledges the honored subset of
 * the requested filter, then carries the lane's own list changes and the updates of the resources
 * it subscribed (URIs of the lane's catalog only), each tagged with the subscription id. With
 * nothing honored it completes at once.
 */
export const listen = (
  c: Exchange,
  d: McpHttpDeps,
  lane: string,
  req: RpcRequest,
  serverInfo: Record<string, unknown>,
  claims: LaneClaims,
): Replied => {
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
  const wanted = Array.isArray(requested.resourceSubscriptions)
    ? [...new Set(requested.resourceSubscriptions.filter((u): u is string => typeof u === 'string'))].slice(0, MAX_RESOURCE_SUBSCRIPTIONS)
    : [];
  // The stream is the holder of its resource subscriptions: they end with it.
  const holder = `listen-${randomUUID()}`;
  const dl = { ...d, era: 'modern' as const, holder };
  const q = pumpQueue();
  const stop = d.sessions.listen(
    lane,
    holder,
    honored,
    (m) => q.push({ jsonrpc: '2.0', method: m.method, params: tag((m.params as Record<string, unknown> | undefined) ?? {}) }),
    // A reload that revokes the token it was opened with ends the stream at once.
    { claims, close: q.close },
  );
  return streamSse(c, async (stream) => {
    const granted = wanted.length > 0 ? await changeResources(dl, lane, wanted, true) : [];
    if (granted.length > 0) honored.resourceSubscriptions = granted;
    await stream.writeSSE({
      event: 'message',
      data: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: tag({ notifications: honored }) }),
    });
    if (Object.keys(honored).length === 0) {
      stop();
      await stream.writeSSE({
        event: 'message',
        data: JSON.stringify({
          jsonrpc: '2.0',
          id: req.id,
          result: modernResult(req.method, { _meta: tag()._meta }, serverInfo),
        }),
      });
      return;
    }
    try {
      await pumpSse(stream, q.source);
    } finally {
      stop();
      if (granted.length > 0) void changeResources(dl, lane, granted, false);
    }
  });
};
