import { Hono } from 'hono';
import type { Gateway } from './gateway.js';
import { allowedHosts, allowedOrigins, checkHostAndOrigin } from './guards.js';
import { handleDelete, handleGet, handlePost, type McpHttpDeps } from './mcp-http.js';
import { gatewayStatus } from './status-api.js';
import { refreshGauges } from './gauges.js';
import { hostProcesses } from './host-processes.js';
import { readTrust } from '../records/trust-file.js';
import { operatorTokenMatches } from './operator.js';
import { type DashboardView, renderDashboard, renderLogin } from './dashboard-html.js';
import { DashboardSessions } from './dashboard-sessions.js';
import { changeResources } from './resource-holders.js';

const INSTRUCTIONS = 'Tools are served by lanegate. Each tool name is prefixed with the upstream that provides it (prefix_tool).';

/** The front's HTTP surface: /mcp for lanes; health, readiness and metrics for operators. */
export const buildApp = (gw: Gateway, operatorHash: Buffer): Hono => {
  const app = new Hono();
  const deps = (): McpHttpDeps => ({
    policy: () => gw.policy,
    catalog: gw.catalog,
    hostRequest: (k, m, p, t, signal) => gw.hostRequest(k, m, p, t, signal),
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

  app.post('/mcp', (c) => handlePost(c, d()));
  app.get('/mcp', (c) => handleGet(c, d()));
  app.delete('/mcp', (c) => handleDelete(c, d()));
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', (c) => {
    const running = new Set(gw.hosts.running());
    const missing = gw.sharedHostKeys().filter((k) => !running.has(k));
    return c.json({ ready: missing.length === 0, missingHosts: missing }, missing.length === 0 ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    if (!operatorTokenMatches(c.req.header('authorization'), operatorHash)) return c.text('operator token required\n', 401);
    await refreshGauges(gw);
    return c.text(await gw.metrics.registry.metrics(), 200, { 'content-type': gw.metrics.registry.contentType });
  });
  const dash = new DashboardSessions();
  // The operator API takes the operator token, or a dashboard browser session; a state-changing
  // request from the browser must also carry a custom header (no cross-site form can set one).
  app.use('/api/*', async (c, next) => {
    const bearer = operatorTokenMatches(c.req.header('authorization'), operatorHash);
    const browser = dash.valid(c.req.header('cookie')) && (c.req.method === 'GET' || c.req.header('x-lanegate-csrf') === '1');
    if (!bearer && !browser) return c.json({ error: 'operator token required' }, 401);
    await next();
  });
  app.get('/dashboard', async (c) => {
    if (!dash.valid(c.req.header('cookie'))) return c.html(renderLogin(), 401);
    const lanes = Object.values(gw.policy.lanes).map((l) => {
      const seen = gw.lastSeen.get(l.name);
      return {
        name: l.name,
        servers: l.servers,
        enabled: l.enabled,
        catalog: l.catalog,
        sessions: gw.sessions.countOf(l.name),
        ...(seen ? { lastSeen: seen } : {}),
      };
    });
    const refusals = Object.entries(gw.guard.servers)
      .filter(([, g]) => g.status === 'refused')
      .flatMap(([server, g]) => g.findings.slice(0, 3).map((f) => ({ server, tool: f.item, finding: f.finding, matched: f.matched })));
    let trust: DashboardView['trust'];
    try {
      trust = readTrust(gw.policy.gateway.stateDir);
    } catch (e) {
      trust = { error: e instanceof Error ? e.message : 'records/trust.json is unreadable' };
    }
    return c.html(
      renderDashboard({ rows: await gw.liveReview(), lanes, refusals, measure: gw.evaluator.progress, trust, now: Date.now() }),
    );
  });
  app.post('/dashboard/login', async (c) => {
    const form = await c.req.parseBody();
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    if (!operatorTokenMatches(`Bearer ${token}`, operatorHash)) {
      gw.metrics.authRefused.inc({ code: 'dashboard_login' });
      return c.html(renderLogin('That is not the operator token.'), 401);
    }
    return c.body(null, 303, { location: '/dashboard', 'set-cookie': dash.cookie(dash.create()) });
  });
  app.get('/api/servers', async (c) => c.json({ servers: await gw.liveReview() }));
  app.get('/api/status', async (c) => c.json(await gatewayStatus(gw)));
  app.post('/api/measure', (c) => c.json(gw.evaluator.startUncapped(), 202));
  app.post('/api/reload', async (c) => {
    const r = await gw.reload();
    return c.json(r, r.ok ? 200 : 422);
  });
  app.get('/api/measure', (c) => c.json(gw.evaluator.progress));
  app.get('/api/processes', async (c) => {
    const hosts = await hostProcesses(gw.hosts, 5000);
    return c.json({ front: process.pid, hosts: Object.fromEntries(hosts.map((h) => [h.key, { pid: h.pid, children: h.children }])) });
  });
  return app;
};
