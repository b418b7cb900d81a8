import { Hono } from 'hono';
import type { Gateway } from './gateway.js';
import { allowedHosts, allowedOrigins, checkHostAndOrigin } from './transport/guards.js';
import type { McpHttpDeps } from './transport/mcp-http.js';
import { mcpRoutes } from './transport/mcp-routes.js';
import { operatorRoutes } from './operator/routes.js';
import { changeResources } from './mcp/resource-holders.js';

const INSTRUCTIONS = 'Tools are served by lanegate. Each tool name is prefixed with the upstream that provides it (prefix_tool).';

/**
 * The front's HTTP surface, composed: the Host/Origin check for every request, the MCP transport
 * for lanes at /mcp, and the operator plane (health, readiness, metrics, API, dashboard).
 */
export const buildApp = (gw: Gateway, operatorHash: Buffer): Hono => {
  const app = new Hono();
  const deps = (): McpHttpDeps => ({
    policy: () => gw.policy,
    catalog: gw.catalog,
    hostRequestRaw: (k, m, p, t, signal) => gw.hostRequestRaw(k, m, p, t, signal),
    inflight: gw.inflight,
    load: gw.load,
    fair: gw.fair,
    log: gw.log,
    serverInfo: { name: 'lanegate', version: '0.1.0' },
    drift: () => Object.fromEntries(Object.entries(gw.inventory).map(([k, v]) => [k, v.line])),
    escalated: (lane) => gw.escalations.ofLane(lane),
    instructions: INSTRUCTIONS,
    auth: gw.auth,
    sessions: gw.sessions,
    streams: gw.streams,
    clientRequests: gw.clientRequests,
    mrtr: gw.mrtr,
    realm: 'lanegate',
    onRefused: (code) => gw.metrics.authRefused.inc({ code }),
    onSubscription: (lane, holder, uri, on) => gw.sessions.trackResource(lane, holder, uri, on),
    onCall: (server, lane, method, seconds, error) => {
      gw.metrics.calls.inc({ server, lane, method });
      gw.metrics.latency.observe({ server, lane }, seconds);
      if (error) gw.metrics.errors.inc({ server, lane, kind: error });
      gw.lastSeen.set(lane, Date.now());
    },
  });
  let cached: McpHttpDeps | undefined;
  const d = (): McpHttpDeps => {
    cached ??= deps();
    return cached;
  };
  // A session that ends (DELETE, idle, evicted, lane cut off) lets go of its resource subscriptions.
  gw.sessions.onEnd = (s) => {
    if (s.resources.size > 0) void changeResources({ ...d(), era: 'legacy', holder: s.id }, s.lane, [...s.resources], false);
  };

  // The allowed Host and Origin sets, built once per policy (a reload replaces the policy object).
  let allowed: { policy: unknown; port: number; hosts: Set<string>; origins: Set<string> } | undefined;
  const allowedNow = (): { hosts: Set<string>; origins: Set<string> } => {
    if (allowed?.policy !== gw.policy || allowed.port !== gw.port) {
      const extraHosts = gw.policy.gateway.publicUrl ? [new URL(gw.policy.gateway.publicUrl).host] : [];
      allowed = {
        policy: gw.policy,
        port: gw.port,
        hosts: allowedHosts(gw.port, extraHosts),
        origins: allowedOrigins(gw.port, gw.policy.gateway.allowedOrigins),
      };
    }
    return allowed;
  };
  app.use('*', async (c, next) => {
    const { hosts, origins } = allowedNow();
    const why = checkHostAndOrigin(c.req.header('host'), c.req.header('origin'), hosts, origins);
    if (why) {
      gw.metrics.httpRefused.inc({ reason: 'host_or_origin' });
      return c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Forbidden: ${why}` } }, 403);
    }
    await next();
  });

  app.route('/mcp', mcpRoutes(d));
  app.route('/', operatorRoutes(gw, operatorHash));
  return app;
};
