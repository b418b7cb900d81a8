import { readFileSync } from 'node:fs';
import type { StatusParts } from '../front-parts.js';
import { hostProcesses } from '../hosts/host-processes.js';
import { liveReview } from './live-review.js';

/** A process's resident set in MB from /proc (Linux), or undefined where there is none. */
const rssMb = (pid: number | undefined): number | undefined => {
  if (!pid) return undefined;
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * GET /api/status: the running gateway in one payload for `lanegate status`: servers with their
 * placement and evidence scope, lanes and sessions, hosts and children with pid and RSS, recent
 * hazards and refusals. The hosts are asked once.
 */
export const gatewayStatus = async (gw: StatusParts): Promise<Record<string, unknown>> => {
  const processes = await hostProcesses(gw.hosts);
  const rows = await liveReview(gw, processes);
  const hosts = processes.map((h) => ({ ...h, rssMb: rssMb(h.pid), children: h.children.map((c) => ({ ...c, rssMb: rssMb(c.pid) })) }));
  return {
    front: { pid: process.pid, rssMb: rssMb(process.pid), url: gw.url() },
    servers: rows.map((r) => ({
      server: r.server,
      domain: r.domain,
      placement: r.placement,
      ...(r.live?.runningPlacement && r.live.runningPlacement !== r.placement ? { runningNow: r.live.runningPlacement } : {}),
      evidence: r.strength,
      scope: r.scope,
      refuted: r.refuted,
      sharedLanes: r.live?.sharedLanes ?? [],
      escalations: r.live?.escalations ?? [],
      ...(r.live?.promotedAt ? { promotedAt: r.live.promotedAt } : {}),
      ...(r.live?.retreatedAt ? { retreatedAt: r.live.retreatedAt } : {}),
      ...(r.live?.joined ? { joined: r.live.joined } : {}),
      guard: r.guard,
      ...(r.withheld ? { withheld: r.withheld } : {}),
      ...(r.drift ? { drift: r.drift } : {}),
    })),
    lanes: Object.values(gw.policy.lanes).map((l) => ({
      lane: l.name,
      enabled: l.enabled,
      servers: l.servers,
      sessions: gw.sessions.countOf(l.name),
      ...(gw.lastSeen.get(l.name) ? { lastSeen: new Date(gw.lastSeen.get(l.name) ?? 0).toISOString() } : {}),
    })),
    hosts,
    hazards: rows.flatMap((r) =>
      r.hazards
        .filter((h) => h.current)
        .map((h) => ({ server: r.server, codes: h.record.codes, count: h.record.count, lastSeen: h.record.lastSeen })),
    ),
    failures: gw.upstreamHealth.list(),
    refusals: Object.entries(gw.guard.servers)
      .filter(([, g]) => g.status === 'refused')
      .map(([server, g]) => ({ server, findings: g.findings.slice(0, 3).map((f) => ({ item: f.item, finding: f.finding })) })),
  };
};
