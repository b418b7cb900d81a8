import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import { type Holder, ResourceSubs } from './resource-subs.js';

/**
 * Resource subscriptions of lanes, carried to upstream children. A handshake-era child is sent
 * resources/subscribe and resources/unsubscribe; a 2026-07-28 child (which has no such methods)
 * gets a `subscriptions/listen` per URI, cancelled when its last holder lets go. Subscriptions are
 * renewed when a child restarts.
 */
/** How long a 2026-07-28 child has to acknowledge a resource subscription before it counts as refused. */
const ACK_TIMEOUT_MS = 5_000;

export class ResourceRelay {
  private readonly subs = new ResourceSubs();
  private readonly listens = new Map<string, AbortController>();
  /** Listens waiting for the child's acknowledgement, by child and URI. */
  private readonly acks = new Map<string, (ok: boolean) => void>();

  constructor(private readonly timeoutMs: (server: string) => number) {}

  private upstream(server: string, child: string, conn: UpstreamConn, uri: string): Promise<unknown> {
    if (!conn.modern) return conn.request('resources/subscribe', { uri }, this.timeoutMs(server));
    const key = `${child}\u0000${uri}`;
    const ac = new AbortController();
    this.listens.get(key)?.abort();
    this.listens.set(key, ac);
    // The server acknowledges the subset it honours; without the URI in it, the lane is told no.
    const acked = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ACK_TIMEOUT_MS);
      this.acks.set(key, (ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
    });
    // Its answer comes only when the server ends it; updates arrive as notifications meanwhile.
    void conn.request('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } }, 0, ac.signal).catch(() => undefined);
    return acked.then((ok) => {
      this.acks.delete(key);
      if (ok) return;
      ac.abort();
      if (this.listens.get(key) === ac) this.listens.delete(key);
      throw new RpcFailure({ code: ERR.invalidParams, message: `the upstream does not honour a subscription to ${uri}` });
    });
  }

  /** A 2026-07-28 child acknowledged a listen: the URIs it names are honoured. */
  acknowledged(server: string, childKey: string, params: Record<string, unknown> | undefined): void {
    const honoured = (params?.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
    if (!Array.isArray(honoured)) return;
    for (const uri of honoured) this.acks.get(`${server}\u0000${childKey}\u0000${String(uri)}`)?.(true);
  }

  /** A holder subscribes (on) or unsubscribes (off); the upstream hears only the first and last. */
  async change(server: string, childKey: string, conn: UpstreamConn, uri: string, h: Holder, on: boolean): Promise<void> {
    const child = `${server}\u0000${childKey}`;
    if (on) {
      if (!this.subs.add(child, uri, h)) return;
      try {
        await this.upstream(server, child, conn, uri);
      } catch (e) {
        this.subs.remove(child, uri, h);
        throw e;
      }
      return;
    }
    if (!this.subs.remove(child, uri, h)) return;
    const listen = this.listens.get(`${child}\u0000${uri}`);
    this.listens.delete(`${child}\u0000${uri}`);
    if (conn.modern) listen?.abort();
    else await conn.request('resources/unsubscribe', { uri }, this.timeoutMs(server)).catch(() => undefined);
  }

  /** A child (re)connected: its subscriptions are made again on the new connection. */
  renew(server: string, childKey: string, conn: UpstreamConn): Promise<unknown[]> {
    const child = `${server}\u0000${childKey}`;
    return Promise.all(this.subs.uris(child).map((uri) => this.upstream(server, child, conn, uri).catch(() => undefined)));
  }

  /**
   * Moves the subscriptions of the lanes `which` picks from the shared child(ren) to each lane's own
   * child (subscribed when it connects). Returns the lanes' children to start, and the URIs the
   * shared child no longer has any holder for (its 2026-07-28 listens are ended here).
   */
  private moveOff(
    server: string,
    which: (lane: string) => boolean,
  ): { moved: { lane: string; era: Era }[]; released: { era: Era; uri: string }[] } {
    const moved = new Map<string, { lane: string; era: Era }>();
    const released: { era: Era; uri: string }[] = [];
    for (const e of this.subs.entries(`${server}\u0000*|`)) {
      if (!which(e.holder.lane)) continue;
      const era: Era = e.child.endsWith('|modern') ? 'modern' : 'legacy';
      if (this.subs.remove(e.child, e.uri, e.holder)) {
        const key = `${e.child}\u0000${e.uri}`;
        this.listens.get(key)?.abort();
        this.listens.delete(key);
        released.push({ era, uri: e.uri });
      }
      this.subs.add(`${server}\u0000${e.holder.lane}|${era}`, e.uri, e.holder);
      moved.set(`${e.holder.lane}|${era}`, { lane: e.holder.lane, era });
    }
    return { moved: [...moved.values()], released };
  }

  /** The server retreated from shared to dedicated (its shared child is stopped): every lane's subscriptions move. */
  retreat(server: string): { lane: string; era: Era }[] {
    return this.moveOff(server, () => true).moved;
  }

  /**
   * ONE lane left the shared child (escalation): its subscriptions move to its own child, and a URI
   * no other lane still holds is let go upstream on the shared child, which keeps running.
   */
  async escalate(server: string, lane: string, sharedConn: (era: Era) => UpstreamConn | undefined): Promise<{ lane: string; era: Era }[]> {
    const { moved, released } = this.moveOff(server, (l) => l === lane);
    await Promise.all(
      released.map(({ era, uri }) => {
        const conn = sharedConn(era);
        return conn && !conn.modern
          ? conn.request('resources/unsubscribe', { uri }, this.timeoutMs(server)).catch(() => undefined)
          : undefined;
      }),
    );
    return moved;
  }

  /**
   * ONE lane moves onto the shared child(ren) (live promotion): its subscriptions leave its own
   * child (stopped next; its 2026-07-28 listens end here) for the shared child of the same era.
   * Returns, per era it held any in, the URIs the shared child is not yet subscribed to.
   */
  join(server: string, lane: string): Map<Era, string[]> {
    const fresh = new Map<Era, string[]>();
    for (const e of this.subs.entries(`${server}\u0000${lane}|`)) {
      const era: Era = e.child.endsWith('|modern') ? 'modern' : 'legacy';
      this.subs.remove(e.child, e.uri, e.holder);
      const key = `${e.child}\u0000${e.uri}`;
      this.listens.get(key)?.abort();
      this.listens.delete(key);
      const first = this.subs.add(`${server}\u0000*|${era}`, e.uri, e.holder);
      fresh.set(era, [...(fresh.get(era) ?? []), ...(first ? [e.uri] : [])]);
    }
    return fresh;
  }

  /** Subscribes a child that is already up to a URI (a lane joined it holding one). */
  subscribe(server: string, childKey: string, conn: UpstreamConn, uri: string): Promise<unknown> {
    return this.upstream(server, `${server}\u0000${childKey}`, conn, uri);
  }

  holders(server: string, childKey: string, uri: string): Holder[] {
    return this.subs.holders(`${server}\u0000${childKey}`, uri);
  }

  held(server: string, childKey: string): boolean {
    return this.subs.held(`${server}\u0000${childKey}`);
  }
}
