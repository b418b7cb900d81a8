import type { Policy } from '../policy/model.js';
import { splitPrefixed, splitPrefixedUri } from '../naming/prefix.js';

/** Which host process serves a server for a lane: one per shared domain, one per (domain, lane) otherwise. */
export const hostKeyFor = (policy: Pick<Policy, 'domains'>, domain: string, lane: string): string =>
  policy.domains[domain]?.perLane ? `${domain}@${lane}` : domain;

/** A host key read back: its trust domain, and its lane when the domain is per lane. Pure. */
export const parseHostKey = (key: string): { domain: string; lane?: string } => {
  const at = key.indexOf('@');
  return at < 0 ? { domain: key } : { domain: key.slice(0, at), lane: key.slice(at + 1) };
};

export type Route = { ok: true; server: string; rest: string; hostKey: string } | { ok: false; reason: 'not_in_catalog' };

/**
 * Routes a public name (tool, prompt, or resource URI) for a lane. A name whose prefix is not
 * a server in the lane's loadout is `not_in_catalog`, whether or not that server exists, so a
 * lane learns nothing about other lanes' servers. Pure.
 */
export const route = (
  policy: Pick<Policy, 'domains' | 'servers' | 'lanes'>,
  lane: string,
  publicName: string,
  kind: 'name' | 'uri' = 'name',
): Route => {
  const parts = kind === 'uri' ? splitPrefixedUri(publicName) : splitPrefixed(publicName);
  if (!parts) return { ok: false, reason: 'not_in_catalog' };
  const loadout = policy.lanes[lane]?.servers ?? [];
  for (const serverName of loadout) {
    const s = policy.servers[serverName];
    if (s?.enabled && s.prefix === parts.prefix) {
      return { ok: true, server: s.name, rest: parts.rest, hostKey: hostKeyFor(policy, s.domain, lane) };
    }
  }
  return { ok: false, reason: 'not_in_catalog' };
};

/** The hosts a lane's catalog spans, each with the servers it contributes. Pure. */
export const hostsForLane = (
  policy: Pick<Policy, 'domains' | 'servers' | 'lanes'>,
  lane: string,
): Map<string, { domain: string; servers: string[] }> => {
  const out = new Map<string, { domain: string; servers: string[] }>();
  for (const serverName of policy.lanes[lane]?.servers ?? []) {
    const s = policy.servers[serverName];
    if (!s?.enabled) continue;
    const key = hostKeyFor(policy, s.domain, lane);
    const entry = out.get(key) ?? { domain: s.domain, servers: [] };
    entry.servers.push(s.name);
    out.set(key, entry);
  }
  return out;
};

/** The lanes whose catalog spans host `key` (a per-lane host: its one lane). Pure. */
export const lanesOfHost = (policy: Pick<Policy, 'domains' | 'servers' | 'lanes'>, key: string): string[] =>
  Object.keys(policy.lanes).filter((lane) => hostsForLane(policy, lane).has(key));
