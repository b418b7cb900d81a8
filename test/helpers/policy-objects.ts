import type { Policy } from '../../src/policy/model.js';

/**
 * A resolved policy's parts built by hand, for pure tests of routing and catalogs (no file, no
 * validation): a stdio server with the defaults, and a policy of two shared trust domains (two
 * hosts) with the given servers and lanes.
 */
export const stdioServer = (name: string, domain: string, prefix = name, enabled = true) => ({
  name,
  prefix,
  domain,
  enabled,
  share: 'auto' as const,
  onDrift: 'report' as const,
  upstreamEra: 'legacy' as const,
  transport: { kind: 'stdio' as const, command: 'node', commandPath: '/usr/bin/node', args: [], env: {} },
  perLaneLaunch: false,
  idleMs: 1000,
  callTimeoutMs: 1000,
});

/** Servers `[name, domain]` in the shared domains `org` and `public`; lanes name their servers. */
export const twoHostPolicy = (servers: [string, 'org' | 'public'][], lanes: Record<string, string[]>): Policy =>
  ({
    domains: {
      org: { name: 'org', kind: 'shared', perLane: false, secrets: [] },
      public: { name: 'public', kind: 'shared', perLane: false, secrets: [] },
    },
    servers: Object.fromEntries(servers.map(([name, domain]) => [name, stdioServer(name, domain)])),
    lanes: Object.fromEntries(
      Object.entries(lanes).map(([name, s]) => [name, { name, servers: s, enabled: true, catalog: 'full', naming: 'prefixed' }]),
    ),
  }) as unknown as Policy;
