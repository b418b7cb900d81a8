import { type HostNotes, LINK } from '../../link/protocol.js';
import type { Logger } from 'pino';
import type { HostConfig } from '../../link/config.js';
import type { Policy } from '../../policy/model.js';
import type { HostManager } from '../hosts/hosts.js';
import type { Metrics } from './metrics.js';

/** What changed live for one server, as the review, status and dashboard show it. */
export interface LiveChanges {
  promotedAt?: number;
  retreatedAt?: number;
  /** Lanes moved from a child of their own onto the shared child, latest move last. */
  joined: { lane: string; at: number }[];
}

/**
 * The front's view of live placement: hosts report promotions, retreats and lane moves
 * (`lanegate/placed`); the front records, counts and logs them, and sends every running shared
 * host its current placements whenever the evidence may have changed them (a measure pass, a
 * hazard). A host's exit forgets its entries: a new host starts with the placements in force.
 */
export class LivePlacement {
  private readonly byServer = new Map<string, LiveChanges & { host: string }>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly gw: {
      policy: Policy;
      hosts: HostManager;
      metrics: Metrics;
      log: Logger;
      hostConfig: (key: string) => HostConfig | undefined;
      sharedHostKeys: () => string[];
    },
  ) {}

  record(host: string, p: Partial<HostNotes[typeof LINK.placed]>): void {
    const server = String(p.server ?? '');
    if (!this.gw.policy.servers[server] || !['promoted', 'joined', 'retreated'].includes(String(p.change))) return;
    const lane = p.lane !== undefined && this.gw.policy.lanes[p.lane] ? p.lane : undefined;
    if (p.change === 'joined' && lane === undefined) return;
    const at = Number(p.at ?? Date.now());
    const row = this.byServer.get(server) ?? { host, joined: [] };
    if (p.change === 'promoted') Object.assign(row, { promotedAt: at, joined: [] });
    if (p.change === 'retreated') row.retreatedAt = at;
    if (p.change === 'joined' && lane) row.joined = [...row.joined.filter((j) => j.lane !== lane), { lane, at }];
    this.byServer.set(server, row);
    this.gw.metrics.placed.inc({ server, change: String(p.change) });
    this.gw.log.info(
      { event: `server_${String(p.change)}`, server, ...(lane ? { lane } : {}), host },
      p.change === 'joined' ? `lane "${lane}" moved onto the shared "${server}" child` : `"${server}" ${String(p.change)} live`,
    );
  }

  ofServer(server: string): LiveChanges | undefined {
    const r = this.byServer.get(server);
    return (
      r && {
        ...(r.promotedAt ? { promotedAt: r.promotedAt } : {}),
        ...(r.retreatedAt ? { retreatedAt: r.retreatedAt } : {}),
        joined: r.joined,
      }
    );
  }

  forgetHost(host: string): void {
    for (const [k, r] of this.byServer) if (r.host === host) this.byServer.delete(k);
  }

  /**
   * Sends each running shared host the placements the evidence gives now, where they differ from
   * what it runs. One application at a time; resolves when every host has taken them.
   */
  apply(why: string): Promise<void> {
    const run = this.chain.then(() => this.applyNow(why));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async applyNow(why: string): Promise<void> {
    const running = new Set(this.gw.hosts.running());
    for (const key of this.gw.sharedHostKeys()) {
      if (!running.has(key)) continue;
      const was = this.gw.hosts.configOf(key);
      const cfg = this.gw.hostConfig(key);
      if (!cfg || !was) continue;
      if (JSON.stringify([was.placements, was.scopes]) === JSON.stringify([cfg.placements, cfg.scopes])) continue;
      try {
        await this.gw.hosts.request(key, LINK.configure, { config: cfg as unknown as Record<string, unknown> }, 30_000);
        this.gw.hosts.setConfig(key, cfg);
        this.gw.log.info({ event: 'placements_applied', host: key, why, placements: cfg.placements }, 'placements applied live');
      } catch (e) {
        this.gw.log.warn(
          { event: 'placements_not_applied', host: key, why, detail: e instanceof Error ? e.message : 'unknown' },
          'a host could not take its placements live; they apply when it restarts',
        );
      }
    }
  }
}
