/**
 * DNS-rebinding defence for a loopback service: the Host header must name this listener, and
 * an Origin, when a browser sends one, must be a loopback origin of this port or one the
 * operator allowed. Pure.
 */
export const allowedHosts = (port: number, extra: string[] = []): Set<string> =>
  new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...extra]);

export const allowedOrigins = (port: number, extra: string[] = []): Set<string> =>
  new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, ...extra]);

export const checkHostAndOrigin = (
  host: string | undefined,
  origin: string | undefined,
  hosts: ReadonlySet<string>,
  origins: ReadonlySet<string>,
): string | undefined => {
  if (!host || !hosts.has(host.toLowerCase())) return 'Host header does not name this gateway';
  if (origin !== undefined && origin !== 'null' && !origins.has(origin.toLowerCase())) return 'Origin not allowed';
  if (origin === 'null') return 'Origin not allowed';
  return undefined;
};
