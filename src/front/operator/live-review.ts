import type { ReviewRow } from '../../shareability/review.js';
import type { ReviewParts } from '../front-parts.js';
import { hostProcesses } from '../hosts/host-processes.js';

/**
 * The review rows with what only the running gateway knows (`known`: the hosts' processes, when the
 * caller asked for them already): the lanes on each shared child now
 * (asked of the running hosts), and the lanes escalated off it and by which request. The
 * dashboard, /api/servers and `lanegate review` all read these rows.
 */
export const liveReview = async (gw: ReviewParts, known?: Awaited<ReturnType<typeof hostProcesses>>): Promise<ReviewRow[]> => {
  const inventory = Object.fromEntries(Object.entries(gw.inventory).map(([k, v]) => [k, v.line]));
  const rows = gw.evidence.review(gw.guard, inventory);
  const onShared = new Map<string, Set<string>>();
  for (const h of known ?? (await hostProcesses(gw.hosts))) {
    for (const p of h.children) {
      if (!p.lanes) continue;
      const set = onShared.get(p.server) ?? new Set<string>();
      for (const l of p.lanes) set.add(l);
      onShared.set(p.server, set);
    }
  }
  // A running host takes a new placement live, moments after the pass that earned it: say what runs
  // now beside what the evidence says (they differ only while the change is being applied).
  const running = (server: string): 'shared' | 'dedicated' | undefined => {
    const domain = gw.policy.servers[server]?.domain;
    const cfg = domain !== undefined && gw.policy.domains[domain]?.perLane === false ? gw.hosts.configOf(domain) : undefined;
    return cfg?.placements[server];
  };
  return rows.map((r) => {
    const now = running(r.server);
    const changes = gw.live.ofServer(r.server);
    return {
      ...r,
      live: {
        sharedLanes: [...(onShared.get(r.server) ?? [])].sort(),
        escalations: gw.escalations.ofServer(r.server),
        ...(now ? { runningPlacement: now } : {}),
        ...(changes?.promotedAt ? { promotedAt: changes.promotedAt } : {}),
        ...(changes?.retreatedAt ? { retreatedAt: changes.retreatedAt } : {}),
        ...(changes && changes.joined.length > 0 ? { joined: changes.joined } : {}),
      },
    };
  });
};
