import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { FrontParts } from './front-parts.js';
import { allowedHosts, allowedOrigins, checkHostAndOrigin } from './transport/guards.js';
import type { McpHttpDeps } from './transport/mcp-http.js';
import { mcpRoute } from './transport/mcp-routes.js';
import { serveProbe } from './operator/probes.js';
import { Exchange } from './transport/exchange.js';
import { changeResources } from './mcp/resource-holders.js';
import { holderContext } from './mcp/call-context.js';
import { hostsForLane } from '../routing/route.js';
import { LINK } from '../link/protocol.js';
import { ERR } from '../rpc/jsonrpc.js';
import { VERSION } from '../install-paths.js';

const INSTRUCTIONS = 'Tools are served by lanegate. Each tool name is prefixed with the upstream that provides it (prefix_tool).';

/**
 * The front's HTTP surface, composed: the Host/Origin check for every request, the MCP transport
 * for lanes at /mcp, and the operator plane (health, readiness, metrics, API, dashboard).
 */
export const buildApp = (gw: FrontParts, operatorHash: Buffer): RequestListener => {
  // The services of /mcp: built once, shared by every request (a request's own values are its CallContext).
  const d: McpHttpDeps = {
    policy: () => gw.policy,
    catalog: gw.catalog,
    hostRequestRaw: (k, m, p, t, signal) => gw.hostRequestRaw(k, m, p, t, signal),
    calls: gw.calls,
    load: gw.load,
    fair: gw.fair,
    send: gw.send,
    requestBytes: gw.requestBytes,
    answerBytes: gw.answerBytes,
    log: gw.log,
    serverInfo: { name: 'lanegate', version: VERSION },
    drift: () => Object.fromEntries(Object.entries(gw.inventory).map(([k, v]) => [k, v.line])),
    escalated: (lane) => gw.escalations.ofLane(lane),
    instructions: INSTRUCTIONS,
    auth: gw.auth,
    sessions: gw.sessions,
    realm: 'lanegate',
    onRefused: (code) => gw.metrics.authRefused.inc({ code }),
    onSubscription: (lane, holder, uri, on) => gw.sessions.trackResource(lane, holder, uri, on),
    subscriptionsOf: (lane, holder, uri) => gw.sessions.resourcesOf(lane, holder, uri),
    onCall: (server, lane, method, seconds, error) => {
      gw.metrics.calls.inc({ server, lane, method });
      gw.metrics.latency.observe({ server, lane }, seconds);
      if (error) gw.metrics.errors.inc({ server, lane, kind: error });
      gw.lastSeen.set(lane, Date.now());
    },
    onAudit: (r) => gw.audit.add(r),
  };
  // A session that ends (DELETE, idle, evicted, lane cut off) lets go of what it had open: its calls
  // in flight, the client requests only it could answer, its resource subscriptions.
  gw.sessions.onEnd = (s) => {
    gw.calls.cancel({ of: 'holder', lane: s.lane, holder: s.id });
    if (s.resources.size > 0) void changeResources(d, holderContext(s.lane, 'legacy', s.id), [...s.resources], false);
    // Its tasks too: each running host of the lane cancels the ones the session held (a session
    // that never asked for a task holds none, and costs its hosts no message).
    if (!s.tasked) return;
    const running = new Set(gw.hosts.running());
    for (const key of hostsForLane(gw.policy, s.lane).keys())
      if (running.has(key)) void gw.hosts.request(key, LINK.sessionEnded, { lane: s.lane, holder: s.id }, 5000).catch(() => undefined);
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
  // The operator API and dashboard run on Hono, loaded at the first request for them (the
  // framework's node adapter loads Node's fetch implementation, ~10 MB, which lanes never need).
  let operatorPlane: Promise<RequestListener> | undefined;
  const operator = (): Promise<RequestListener> => {
    operatorPlane ??= Promise.all([import('@hono/node-server'), import('./operator/routes.js')]).then(
      ([{ getRequestListener }, { operatorRoutes }]) => getRequestListener(operatorRoutes(gw, operatorHash).fetch),
      (e: unknown) => {
        operatorPlane = undefined; // a failed load is retried at the next request, not kept
        throw e;
      },
    );
    return operatorPlane;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const c = new Exchange(req, res);
    const { hosts, origins } = allowedNow();
    // node keeps the first of several Host headers; a request with more than one is refused (RFC 9112).
    let hostCount = 0;
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]?.toLowerCase() === 'host') hostCount += 1;
    const why =
      hostCount > 1 ? 'more than one Host header' : checkHostAndOrigin(c.req.header('host'), c.req.header('origin'), hosts, origins);
    if (why) {
      gw.metrics.httpRefused.inc({ reason: 'host_or_origin' });
      c.json({ jsonrpc: '2.0', id: null, error: { code: ERR.invalidRequest, message: `Forbidden: ${why}` } }, 403);
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path === '/mcp') {
      await mcpRoute(c, d);
      return;
    }
    if ((await serveProbe(c, path, gw, operatorHash)) !== undefined) return;
    if (path.startsWith('/api/') || path === '/dashboard' || path.startsWith('/dashboard/')) await (await operator())(req, res);
    else c.text('404 Not Found', 404);
  };
  return (req, res) => {
    serve(req, res).catch((e: unknown) => {
      gw.log.error({ event: 'http_handler_failed', detail: e instanceof Error ? e.message : String(e) }, 'a request failed');
      if (!res.headersSent)
        new Exchange(req, res).json({ jsonrpc: '2.0', id: null, error: { code: ERR.internal, message: 'Internal error' } }, 500);
      else res.destroy();
    });
  };
};
