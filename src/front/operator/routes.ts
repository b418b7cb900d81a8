import type { IncomingMessage } from 'node:http';
import { Hono } from 'hono';
import { readBody } from '../transport/body.js';
import { readTrust } from '../../records/trust-file.js';
import type { FrontParts } from '../front-parts.js';
import { hostProcesses } from '../hosts/host-processes.js';
import { type DashboardView, renderDashboard, renderLogin } from './dashboard-html.js';
import type { ProcessView } from './dashboard-sections.js';
import { DashboardSessions } from './dashboard-sessions.js';
import { operatorTokenMatches } from './operator.js';
import { gatewayStatus } from './status-api.js';

/** The sign-in form: one field holding the operator token. */
const LOGIN_FORM_MAX = 4096;

/**
 * The operator API and the dashboard (operator token), on Hono; loaded the first time one of them
 * is asked for. Health, readiness and metrics are served natively (probes.ts).
 */
export const operatorRoutes = (gw: FrontParts, operatorHash: Buffer): Hono => {
  const app = new Hono();
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
    const status = await gatewayStatus(gw).catch(() => undefined);
    const processes = status ? { front: status.front as ProcessView['front'], hosts: status.hosts as ProcessView['hosts'] } : undefined;
    return c.html(
      renderDashboard({
        rows: await gw.liveReview(),
        lanes,
        refusals,
        measure: gw.evaluator.progress,
        trust,
        now: Date.now(),
        ...(processes ? { processes } : {}),
        failures: gw.upstreamHealth.list(),
      }),
    );
  });
  app.post('/dashboard/login', async (c) => {
    // Anyone may knock here, so the form is read with a small cap (a token is under 100 bytes).
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const declared = Number(c.req.header('content-length') ?? '0');
    if (!incoming || declared > LOGIN_FORM_MAX) return c.text('form too large\n', 413, { connection: 'close' });
    const body = await readBody(incoming, LOGIN_FORM_MAX);
    if (!body.ok) return c.text('form too large\n', 413, { connection: 'close' });
    const token = (new URLSearchParams(body.bytes().toString('utf8')).get('token') ?? '').trim();
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
