/** One lane moved off a shared child: by which request, when, in which host. */
export interface Escalation {
  server: string;
  lane: string;
  request: string;
  at: number;
  host: string;
}

/**
 * The front's view of escalations, fed by the hosts' `lanegate/escalated` events. An escalation
 * lasts until its host restarts, so a host's exit forgets its entries.
 */
export class Escalations {
  private readonly byKey = new Map<string, Escalation>();

  add(e: Escalation): void {
    this.byKey.set(`${e.host}\u0000${e.server}\u0000${e.lane}`, e);
  }

  forgetHost(host: string): void {
    for (const [k, e] of this.byKey) if (e.host === host) this.byKey.delete(k);
  }

  ofLane(lane: string): Record<string, { request: string; at: number }> {
    const out: Record<string, { request: string; at: number }> = {};
    for (const e of this.byKey.values()) if (e.lane === lane) out[e.server] = { request: e.request, at: e.at };
    return out;
  }

  ofServer(server: string): { lane: string; request: string; at: number }[] {
    return [...this.byKey.values()].filter((e) => e.server === server).map(({ lane, request, at }) => ({ lane, request, at }));
  }
}
