import { Hono } from 'hono';
import type { Gateway } from './gateway.js';
import { allowedHosts, allowedOrigins, checkHostAndOrigin } from './guards.js';
import { handleDelete, handleGet, handlePost, type McpHttpDeps } from './mcp-http.js';
import { operatorTokenMatches } from './operator.js';

const INSTRUCTIONS = 'Tools are served by lanegate. Each tool name is prefixed with the upstream that provides it (prefix_tool).';

/** The front's HTTP surface: /mcp for lanes; health, readiness and metrics for operators. */
export const buildApp = (gw: Gateway, operatorHash: Buffer): Hono => {
  const app = new Hono();
  const deps = (): McpHttpDeps => ({
    policy: () => gw.policy,
    catalog: gw.catalog,
    hostRequest: (k, m, p, t) => gw.hostRequest(k, m, p, t),
    serverInfo: { name: 'lanegate', version: '0.1.0' },
    drift: () => Object.fromEntries(Object.entries(gw.inventory).map(([k, v]) => [k, v.line])),
    instructions: INSTRUCTIONS,
    auth: gw.auth,
    sessions: gw.sessions,
    maxBodyBytes: gw.policy.gateway.maxBodyBytes,
    realm: 'lanegate',
    onRefused: (code) => gw.metrics.authRefused.inc({ code }),
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

  app.use('*', async (c, next) => {
    const extraHosts = gw.policy.gateway.publicUrl ? [new URL(gw.policy.gateway.publicUrl).host] : [];
    const why = checkHostAndOrigin(
      c.req.header('host'),
      c.req.header('origin'),
      allowedHosts(gw.port, extraHosts),
      allowedOrigins(gw.port, gw.policy.gateway.allowedOrigins),
    );
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
    await gw.refreshGauges();
    return c.text(await gw.metrics.registry.metrics(), 200, { 'content-type': gw.metrics.registry.contentType });
  });
  app.use('/api/*', async (c, next) => {
    if (!operatorTokenMatches(c.req.header('authorization'), operatorHash)) return c.json({ error: 'operator token required' }, 401);
    await next();
  });
  app.get('/api/servers', (c) =>
    c.json({ servers: gw.evidence.review(gw.guard, Object.fromEntries(Object.entries(gw.inventory).map(([k, v]) => [k, v.line]))) }),
  );
  app.post('/api/measure', (c) => c.json(gw.evaluator.startUncapped(), 202));
  app.post('/api/reload', async (c) => {
    const r = await gw.reload();
    return c.json(r, r.ok ? 200 : 422);
  });
  app.get('/api/measure', (c) => c.json(gw.evaluator.progress));
  app.get('/api/processes', async (c) => {
    const out: Record<string, unknown> = {};
    for (const [key, pid] of Object.entries(gw.hosts.pids())) {
      if (pid === undefined) continue;
      const r = await gw.hosts.request(key, 'lanegate/processes', {}, 5000).catch(() => ({ processes: [] }));
      out[key] = { pid, children: r.processes };
    }
    return c.json({ front: process.pid, hosts: out });
  });
  return app;
};
