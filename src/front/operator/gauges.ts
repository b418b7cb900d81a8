import type { GaugeParts } from '../front-parts.js';
import { hostProcesses } from '../hosts/host-processes.js';

/** Gauges are read at scrape time: processes by placement, sessions, hosts, lanes seen lately. */
export const refreshGauges = async (gw: GaugeParts): Promise<void> => {
  const counts = { shared: 0, dedicated: 0 };
  for (const h of await hostProcesses(gw.hosts)) for (const p of h.children) counts[p.placement] += 1;
  gw.metrics.processes.set({ placement: 'shared' }, counts.shared);
  gw.metrics.processes.set({ placement: 'dedicated' }, counts.dedicated);
  gw.metrics.sessions.set(gw.sessions.count());
  gw.metrics.hosts.set(gw.hosts.running().length);
  const recent = Date.now() - 5 * 60_000;
  gw.metrics.lanesConnected.set(
    new Set([...gw.sessions.lanesConnected(), ...[...gw.lastSeen].filter(([, t]) => t > recent).map(([l]) => l)]).size,
  );
};
