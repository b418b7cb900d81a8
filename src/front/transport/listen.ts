import type { Exchange, Replied } from './exchange.js';
import { type SseStream, streamSse } from './sse-stream.js';
import { pumpQueue, pumpSse } from './sse-pump.js';
import { modernResult } from './modern-result.js';
import { randomUUID } from 'node:crypto';
import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { changeResources } from '../mcp/resource-holders.js';
import { MAX_LANE_RESOURCE_SUBSCRIPTIONS, MAX_RESOURCE_SUBSCRIPTIONS } from '../mcp/param-checks.js';
import type { McpHttpDeps } from './http-deps.js';
import { type CallContext, holderContext } from '../mcp/call-context.js';
import type { ListenFilter } from '../mcp/sessions.js';
import type { LaneClaims } from '../../auth/tokens.js';

type Params = Record<string, unknown>;

/** The list changes asked for that a lane may have (all three kinds; anything else is ignored). */
const honoredOf = (requested: Params): ListenFilter => {
  const honored: ListenFilter = {};
  if (requested.toolsListChanged === true) honored.toolsListChanged = true;
  if (requested.promptsListChanged === true) honored.promptsListChanged = true;
  if (requested.resourcesListChanged === true) honored.resourcesListChanged = true;
  return honored;
};

/** The resource URIs asked for, each once, at most MAX_RESOURCE_SUBSCRIPTIONS. */
const wantedOf = (requested: Params): string[] =>
  Array.isArray(requested.resourceSubscriptions)
    ? [...new Set(requested.resourceSubscriptions.filter((u): u is string => typeof u === 'string'))].slice(0, MAX_RESOURCE_SUBSCRIPTIONS)
    : [];

/** Params tagged with the subscription id (the listen request's id). */
const taggerOf =
  (id: unknown) =>
  (params: Params = {}): Params => ({
    ...params,
    _meta: { ...((params._meta as Params | undefined) ?? {}), 'io.modelcontextprotocol/subscriptionId': id },
  });

interface Listening {
  req: RpcRequest;
  serverInfo: Params;
  d: McpHttpDeps;
  /** The stream's own context: it holds its resource subscriptions. */
  x: CallContext;
  honored: ListenFilter;
  wanted: string[];
  tag: (params?: Params) => Params;
  q: ReturnType<typeof pumpQueue>;
  stop: () => void;
}

/** The stream: the acknowledgement; then, with nothing honored, the result at once; else the pumped changes until it ends. */
const runListen = async (stream: SseStream, l: Listening): Promise<void> => {
  const { req, honored, tag } = l;
  const lane = l.x.lane;
  // Within what the lane may still hold (its sessions' and other streams' counted), reserved
  // before they go up: streams opened at once cannot pass the lane's bound together.
  const room = Math.max(0, MAX_LANE_RESOURCE_SUBSCRIPTIONS - l.d.sessions.laneResources(lane));
  const asked = l.wanted.slice(0, room);
  l.d.sessions.holdListen(lane, asked.length);
  const granted = asked.length > 0 ? await changeResources(l.d, l.x, asked, true) : [];
  l.d.sessions.holdListen(lane, granted.length - asked.length);
  if (granted.length > 0) honored.resourceSubscriptions = granted;
  await stream.writeSSE({
    event: 'message',
    data: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: tag({ notifications: honored }) }),
  });
  if (Object.keys(honored).length === 0) {
    l.stop();
    await stream.writeSSE({
      event: 'message',
      data: JSON.stringify({
        jsonrpc: '2.0',
        id: req.id,
        result: modernResult(req.method, { _meta: tag()._meta }, l.serverInfo),
      }),
    });
    return;
  }
  try {
    await pumpSse(stream, l.q.source);
  } finally {
    l.stop();
    // Counted until they are let go upstream: a lane opening and closing streams fast holds no more.
    if (granted.length > 0) void changeResources(l.d, l.x, granted, false).finally(() => l.d.sessions.holdListen(lane, -granted.length));
  }
};

/**
 * `subscriptions/listen` (2026-07-28): an SSE stream that first acknowledges the honored subset of
 * the requested filter, then carries the lane's own list changes and the updates of the resources
 * it subscribed (URIs of the lane's catalog only), each tagged with the subscription id. With
 * nothing honored it completes at once.
 */
export const listen = (c: Exchange, d: McpHttpDeps, lane: string, req: RpcRequest, serverInfo: Params, claims: LaneClaims): Replied => {
  const requested = (req.params?.notifications ?? undefined) as Params | undefined;
  if (!requested || typeof requested !== 'object') {
    return c.json({
      jsonrpc: '2.0',
      id: req.id,
      error: { code: ERR.invalidParams, message: "Invalid params: 'notifications' is required" },
    });
  }
  const honored = honoredOf(requested);
  const tag = taggerOf(req.id);
  const wanted = wantedOf(requested);
  // The stream is the holder of its resource subscriptions: they end with it.
  const holder = `listen-${randomUUID()}`;
  const x = holderContext(lane, 'modern', holder);
  const q = pumpQueue();
  const stop = d.sessions.listen(
    lane,
    holder,
    honored,
    (m) => q.push({ jsonrpc: '2.0', method: m.method, params: tag((m.params as Params | undefined) ?? {}) }),
    // A reload that revokes the token it was opened with ends the stream at once.
    { claims, close: q.close },
  );
  return streamSse(c, (stream) => runListen(stream, { req, serverInfo, d, x, honored, wanted, tag, q, stop }));
};
