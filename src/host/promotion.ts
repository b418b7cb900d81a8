import { type HostOut, LINK, META } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import { escapeUntrusted } from '../log/escape.js';
import { inScope } from '../shareability/scope.js';
import type { Placement } from '../shareability/placement.js';
import type { Era } from '../upstream/conn.js';
import type { ResourceRelay } from './resource-relay.js';
import type { ServerSlot } from './slot.js';

type Params = Record<string, unknown>;

/** Distinct requests remembered per lane and server; past it the lane counts as having asked anything. */
export const MAX_ASKED = 256;

/** What `inScope` reads of a request, and nothing else (pure). */
export const askedOf = (method: string, params: Params | undefined): { method: string; params: Params } => {
  const p = params ?? {};
  const ref = p.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  return {
    method,
    params: {
      ...(p.name !== undefined ? { name: p.name } : {}),
      ...(p.uri !== undefined ? { uri: p.uri } : {}),
      ...(ref ? { ref: { type: ref.type, name: ref.name, uri: ref.uri } } : {}),
      ...(p.task !== undefined ? { task: true } : {}),
    },
  };
};

/** The first request in `asked` outside `scope`, if any ('many': every scope is exceeded). Pure. */
export const firstOutside = (
  scope: ReadonlySet<string>,
  asked: ReadonlyMap<string, { method: string; params: Params }> | 'many' | undefined,
): string | undefined => {
  if (asked === 'many') return `more than ${MAX_ASKED} distinct requests`;
  for (const a of asked?.values() ?? []) {
    const v = inScope(scope, a.method, a.params);
    if (!v.inside) return v.request;
  }
  return undefined;
};

export interface PromotionDeps {
  slots: () => Iterable<ServerSlot>;
  resources: ResourceRelay;
  log: Log;
  notify: HostOut['notify'];
  /** The server retreated (its shared child stopped): subscriptions move to the lanes' own children. */
  onRetreated: (server: string) => void;
}

/**
 * Live promotion, the host's side. A server the front now places shared becomes shared at once:
 * a lane with no child of its own joins the shared child at its next call; a lane on a child of
 * its own that asked only what the demonstration covers moves at a quiet point (no call in flight
 * and no request of its server pending toward its client, on this host), its subscriptions with
 * it; a lane that asked anything else stays on its own child (an escalation). The calls in flight
 * finish where they started, so no call fails or is answered twice because of a move.
 */
export class Promotions {
  /** `server\0lane` → the requests that lane made on its own child of that server. */
  private readonly asked = new Map<string, Map<string, { method: string; params: Params }> | 'many'>();
  /** Lane → calls in flight plus its servers' requests pending toward its client. */
  private readonly busy = new Map<string, number>();

  constructor(private readonly d: PromotionDeps) {}

  /** A request a lane sends to a child of its own: remembered, so a promotion knows what state it may hold. */
  noteOwn(server: string, lane: string, method: string, params: Params | undefined): void {
    const k = `${server}\u0000${lane}`;
    const seen = this.asked.get(k) ?? new Map<string, { method: string; params: Params }>();
    if (seen === 'many') return;
    const a = askedOf(method, params);
    const id = JSON.stringify(a);
    if (seen.has(id)) return;
    if (seen.size >= MAX_ASKED) this.asked.set(k, 'many');
    else this.asked.set(k, seen.set(id, a));
  }

  /** The lane begins a call (or its server asks its client something); the returned function ends it. */
  enter(lane: string): () => void {
    this.busy.set(lane, (this.busy.get(lane) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.busy.get(lane) ?? 1) - 1;
      if (n > 0) {
        this.busy.set(lane, n);
        return;
      }
      this.busy.delete(lane);
      for (const slot of this.d.slots()) if (slot.waiting.has(lane)) void this.settle(slot, lane);
    };
  }

  /**
   * Runs a lane's call (or its server's request of its client) as busy. Before a call to `slot`, a
   * waiting lane that is quiet moves first, so the call already runs on the shared child.
   */
  async around<T>(lane: string, slot: ServerSlot | undefined, f: () => Promise<T>): Promise<T> {
    if (slot?.waiting.has(lane) && !this.busy.has(lane)) void this.settle(slot, lane);
    const done = this.enter(lane);
    try {
      return await f();
    } finally {
      done();
    }
  }

  /** The front's placement for a running slot (after a measure pass, a reload or a hazard). */
  async place(slot: ServerSlot, placement: Placement, scope: readonly string[]): Promise<void> {
    const server = slot.config.name;
    if (placement === 'dedicated') {
      if (slot.placement !== 'shared') return;
      await slot.retreat();
      this.d.onRetreated(server);
      this.event(server, 'retreated');
      this.d.notify('notifications/tools/list_changed', { _meta: { [META.server]: server, [META.lanes]: 'all' } });
      return;
    }
    const was = slot.placement;
    const waiting = slot.promote(new Set(scope));
    if (was === 'shared') return;
    this.d.log.info(
      { event: 'server_promoted', server, scope, waiting },
      `"${server}" is shared from now on (${waiting.length} lane(s) on children of their own move at a quiet point)`,
    );
    this.event(server, 'promoted');
    for (const lane of waiting) if (!this.busy.has(lane)) void this.settle(slot, lane);
  }

  /** A waiting lane settles: escalated if it asked outside the scope, else onto the shared child. */
  private async settle(slot: ServerSlot, lane: string): Promise<void> {
    if (!slot.waiting.has(lane)) return;
    const server = slot.config.name;
    const outside = firstOutside(slot.scope, this.asked.get(`${server}\u0000${lane}`));
    if (outside !== undefined) {
      await slot.settle(lane, true);
      const shown = escapeUntrusted(outside, 200);
      this.d.log.info(
        { event: 'lane_escalated', server, lane, request: shown },
        `lane "${lane}" keeps running "${server}" dedicated: it called ${shown}, which the demonstration did not cover`,
      );
      this.d.notify(LINK.escalated, { server, lane, request: shown, at: Date.now() });
      return;
    }
    this.asked.delete(`${server}\u0000${lane}`);
    // Bookkeeping first and synchronously: the lane's next call already goes to the shared child.
    const fresh = this.d.resources.join(server, lane);
    const up = new Map<Era, boolean>((['legacy', 'modern'] as const).map((e) => [e, slot.sharedConn(e) !== undefined]));
    const stopping = slot.settle(lane, false);
    this.d.log.info({ event: 'lane_joined_shared', server, lane }, `lane "${lane}" moved onto the shared "${server}" child`);
    this.event(server, 'joined', lane);
    for (const [era, uris] of fresh) {
      // A shared child that is not up yet subscribes to every URI it holds when it connects.
      const conn = await slot.conn(lane, era).catch(() => undefined);
      slot.attach(lane, era);
      if (conn && up.get(era))
        for (const uri of uris) await this.d.resources.subscribe(server, slot.keyFor(lane, era), conn, uri).catch(() => undefined);
    }
    await stopping;
  }

  private event(server: string, change: 'promoted' | 'joined' | 'retreated', lane?: string): void {
    this.d.notify(LINK.placed, { server, change, ...(lane ? { lane } : {}), at: Date.now() });
  }
}
