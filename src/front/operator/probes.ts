import type { ProbeParts } from '../front-parts.js';
import type { Exchange, Replied } from '../transport/exchange.js';
import { refreshGauges } from './gauges.js';
import { operatorTokenMatches } from './operator.js';

/**
 * What monitoring asks for often, served without the operator plane's web framework: health and
 * readiness (open), and metrics (operator token). Undefined for any other path.
 */
export const serveProbe = (c: Exchange, path: string, gw: ProbeParts, operatorHash: Buffer): Promise<Replied> | Replied | undefined => {
  if (c.incoming.method !== 'GET' && c.incoming.method !== 'HEAD') return undefined;
  if (path === '/healthz') return c.json({ ok: true });
  if (path === '/readyz') {
    const running = new Set(gw.hosts.running());
    const missing = gw.sharedHostKeys().filter((k) => !running.has(k));
    return c.json({ ready: missing.length === 0, missingHosts: missing }, missing.length === 0 ? 200 : 503);
  }
  if (path === '/metrics') {
    if (!operatorTokenMatches(c.req.header('authorization'), operatorHash)) return c.text('operator token required\n', 401);
    return refreshGauges(gw).then(async () =>
      c.body(await gw.metrics.registry.metrics(), 200, { 'content-type': gw.metrics.registry.contentType }),
    );
  }
  return undefined;
};
