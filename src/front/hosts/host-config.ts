import type { HostConfig } from '../../link/config.js';
import type { Policy } from '../../policy/model.js';
import { secretFilesFor } from '../../policy/queries.js';
import type { Placement } from '../../shareability/placement.js';
import type { GuardFile } from '../../records/guard-file.js';

/**
 * What one host is given: its domain's enabled servers, the loadouts of the lanes it serves
 * restricted to those servers, placements decided at (re)start, and secret file paths. Pure.
 */
export const hostConfigFor = (
  policy: Policy,
  key: string,
  domain: string,
  lane: string | undefined,
  placements: Record<string, Placement>,
  guard: GuardFile = { schema: 1, servers: {} },
  scopes: Record<string, string[]> = {},
): HostConfig => {
  const servers = Object.values(policy.servers).filter((s) => s.domain === domain && s.enabled);
  const names = new Set(servers.map((s) => s.name));
  const lanes: Record<string, string[]> = {};
  for (const l of Object.values(policy.lanes)) {
    if (!l.enabled || (lane !== undefined && l.name !== lane)) continue;
    const mine = l.servers.filter((s) => names.has(s));
    if (mine.length > 0) lanes[l.name] = mine;
  }
  return {
    key,
    domain,
    ...(lane !== undefined ? { lane } : {}),
    stateDir: policy.gateway.stateDir,
    secrets: secretFilesFor(policy, domain, lane),
    servers,
    placements: Object.fromEntries(servers.map((s) => [s.name, placements[s.name] ?? 'dedicated'])),
    scopes: Object.fromEntries(servers.filter((s) => placements[s.name] === 'shared').map((s) => [s.name, scopes[s.name] ?? []])),
    lanes,
    resultBytes: policy.gateway.limits.resultBytes,
    answerBytes: { perLane: policy.gateway.limits.unsentBytesPerLane, total: policy.gateway.limits.unsentBytes },
    pins: Object.fromEntries(
      servers.flatMap((s) => {
        const g = guard.servers[s.name];
        return g?.pinnedHash ? [[s.name, { hash: g.pinnedHash, surface: g.surface, ...(g.profile ? { profile: g.profile } : {}) }]] : [];
      }),
    ),
  };
};
