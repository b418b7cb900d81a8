import { LanegateError } from '../errors.js';
import type { ServerConfig } from '../policy/model.js';
import type { Placement } from '../shareability/placement.js';
import type { Surface } from '../guard/scanner.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import { noteFailure } from '../supervision/restart.js';
import { type ChildScope, type Instance, type SlotHooks, scopeOf, startedEvent } from './slot-types.js';
import { adoptEra, linkEraFor } from './slot-era.js';
import { backoffRefusal, counting, newInstance } from './slot-instance.js';
import { pingAfterTimeout } from './stuck-child.js';

export type { ChildScope, SlotHooks } from './slot-types.js';

const SHARED_KEY = '*';

/**
 * One upstream server inside a host: ONE child for every lane when placed shared, one child
 * per lane when dedicated (started on that lane's first call, stopped when idle). With
 * `upstreamEra: match` that is one child per era in use as well. A crashed child restarts with
 * capped backoff; meanwhile calls fail fast with an error naming it.
 */
export class ServerSlot {
  private readonly instances = new Map<string, Instance>();
  private closed = false;
  /** `auto`: eras this upstream has shown it does not speak. */
  private readonly unspoken = new Set<Era>();
  /** Lanes moved off the shared child for good (until the host restarts); the front keeps why. */
  private readonly escalated = new Set<string>();
  /** Lanes on children of their own at a promotion, until they move at a quiet point (promotion.ts). */
  readonly waiting = new Set<string>();

  constructor(
    readonly config: ServerConfig,
    public placement: Placement,
    private readonly hooks: SlotHooks,
    /** What the shared child may run (`tools/call echo`, …): set when the slot is made or promoted live. */
    public scope: ReadonlySet<string> = new Set(),
  ) {}

  attach(lane: string, era: Era): void {
    if (this.sharedFor(lane)) this.instances.get(this.keyFor(lane, era))?.attached.add(lane);
  }

  /** Whether this lane's requests go to the shared child (placed shared, and the lane never escalated). */
  sharedFor(lane: string): boolean {
    return this.placement === 'shared' && !this.escalated.has(lane) && !this.waiting.has(lane);
  }

  /** Live promotion (promotion.ts): shared within `scope` from now on; lanes on children of their own wait. */
  promote(scope: ReadonlySet<string>): string[] {
    this.scope = scope;
    if (this.placement === 'shared') return [];
    this.placement = 'shared';
    for (const i of this.instances.values()) if (i.lane !== undefined && !this.escalated.has(i.lane)) this.waiting.add(i.lane);
    return [...this.waiting];
  }

  /** A waiting lane settles: on the shared child (its own children stop; nothing is in flight there) or, `stay`, on its own. */
  async settle(lane: string, stay: boolean): Promise<void> {
    if (!this.waiting.delete(lane)) return;
    if (stay) this.escalated.add(lane);
    else await Promise.all([...this.instances.values()].filter((i) => i.lane === lane).map((i) => this.stopInstance(i.key)));
  }

  /**
   * Moves ONE lane to a dedicated child of its own, for good (until the host restarts), before the
   * request that is outside the demonstrated scope runs. The shared child keeps serving the others.
   * Returns false if the lane was not on the shared child.
   */
  escalate(lane: string): boolean {
    if (!this.sharedFor(lane)) return false;
    this.escalated.add(lane);
    for (const inst of this.instances.values()) if (inst.lane === undefined) inst.attached.delete(lane);
    return true;
  }

  /** The shared child's link of this era, if it is up (to let go of what an escalated lane held there). */
  sharedConn(era: Era): UpstreamConn | undefined {
    return this.instances.get(`${SHARED_KEY}|${era}`)?.conn;
  }

  /** Lanes that have used the shared child(ren) and still do. */
  sharedLanes(): string[] {
    const out = new Set<string>();
    for (const inst of this.instances.values()) if (inst.lane === undefined) for (const l of inst.attached) out.add(l);
    return [...out].sort();
  }

  /** Retreat to dedicated AT ONCE: recycle the shared children; every lane's next call gets its own. */
  /** To dedicated children at once; the shared child stops, and calls still on it fail with `why` when given. */
  async retreat(why?: string): Promise<void> {
    if (this.placement === 'dedicated') return;
    this.placement = 'dedicated';
    this.waiting.clear();
    const shared = [...this.instances].filter(([, i]) => i.lane === undefined).map(([k]) => k);
    await Promise.all(shared.map((k) => this.stopInstance(k, why)));
  }

  /** The link era a lane request of `era` uses with this server. */
  linkEra(era: Era): Era {
    return linkEraFor(this.config.upstreamEra, this.unspoken, era);
  }

  /** The key of the child that serves this lane's requests of this era. */
  keyFor(lane: string, era: Era): string {
    return `${this.sharedFor(lane) ? SHARED_KEY : lane}|${this.linkEra(era)}`;
  }

  async conn(lane: string, era: Era = 'legacy'): Promise<UpstreamConn> {
    if (this.closed) throw new LanegateError('upstream_unavailable', `upstream "${this.config.name}" is shutting down`);
    const key = this.keyFor(lane, era);
    let inst = this.instances.get(key);
    // A child being stopped (idle, retreat) is never handed out: the next call gets a new one.
    if (!inst || inst.stopping) {
      inst = newInstance(key, this.sharedFor(lane) ? undefined : lane, this.linkEra(era));
      this.instances.set(key, inst);
    }
    this.touch(inst);
    if (inst.conn) return inst.conn;
    if (inst.starting) return inst.starting;
    const now = Date.now();
    if (now < inst.retryAt) throw backoffRefusal(this.config.name, inst, now);
    return this.start(inst);
  }

  /** The vetted surface of the child serving this lane, fetching it once through `load`. */
  surface(lane: string, era: Era, load: () => Promise<Surface>): Promise<Surface> {
    const inst = this.instances.get(this.keyFor(lane, era));
    if (!inst) return load();
    if (!inst.surface) {
      const p = load();
      inst.surface = p;
      p.catch(() => {
        if (inst.surface === p) inst.surface = undefined;
      });
    }
    return inst.surface;
  }

  pids(): { lane: string | undefined; era: Era; pid: number }[] {
    const out: { lane: string | undefined; era: Era; pid: number }[] = [];
    for (const inst of this.instances.values()) {
      if (inst.conn?.pid !== undefined) out.push({ lane: inst.lane, era: inst.era, pid: inst.conn.pid });
    }
    return out;
  }

  private scopeOf(inst: Instance): ChildScope {
    return scopeOf(inst, this.placement === 'shared');
  }

  /**
   * What a child of this slot says, carried to the host. A closed slot's children are on their way
   * out (a reload replaced the slot): what they still say is not the new slot's, which the host
   * finds by server name, so it is dropped (a request refused).
   */
  private childEvents(inst: Instance): Parameters<SlotHooks['connect']>[2] {
    const name = this.config.name;
    return {
      onNotification: (n) => {
        if (this.closed) return;
        if (n.method.endsWith('/list_changed')) inst.surface = undefined;
        this.hooks.onNotification(name, this.scopeOf(inst), n);
      },
      onServerRequest: (r) =>
        this.closed
          ? Promise.reject(new LanegateError('upstream_unavailable', `upstream "${name}" is shutting down`))
          : this.hooks.onServerRequest(name, this.scopeOf(inst), r),
      onExit: (detail) => this.onExit(inst, detail),
    };
  }

  private start(inst: Instance): Promise<UpstreamConn> {
    const lane = inst.lane;
    const name = this.config.name;
    const p = this.hooks.connect(this.config, lane, this.childEvents(inst), inst.era, this.config.upstreamEra === 'auto').then(
      (link) => {
        // The idle time counts from the last call's end, on a child that is still up (a crash's
        // failed calls settle after it is gone: they must not arm a timer that would stop its restart).
        const conn = counting(
          link,
          inst,
          () => {
            if (inst.conn === conn) this.touch(inst);
          },
          () => void pingAfterTimeout(inst, link, this.config, () => inst.conn === conn && !inst.stopping && !this.closed),
        );
        inst.starting = undefined;
        if (this.closed || inst.stopping) {
          void conn.stop();
          throw new LanegateError('upstream_unavailable', `upstream "${name}" stopped`, { kind: 'crashed' });
        }
        const spoken: Era = conn.modern ? 'modern' : 'legacy';
        if (spoken !== inst.era && !adoptEra(this.instances, this.unspoken, inst, spoken)) {
          inst.stopping = true;
          void conn.stop();
          return this.conn(lane ?? '', spoken);
        }
        inst.conn = conn;
        inst.startedAt = Date.now();
        this.touch(inst); // a restart after a crash idles out like any start
        inst.surface = undefined;
        this.hooks.onConnected?.(name, inst.key, conn);
        this.hooks.onEvent(startedEvent(name, lane, conn));
        return conn;
      },
      (e: unknown) => {
        inst.starting = undefined;
        if (this.config.upstreamEra === 'auto' && inst.era === 'modern') {
          // It hung up on, or never answered, a 2026-07-28 opening: speak the handshake era next time.
          this.unspoken.add('modern');
          if (this.instances.get(inst.key) === inst) this.instances.delete(inst.key);
        }
        const detail = e instanceof LanegateError ? e.detail : 'failed to start';
        noteFailure(inst, `failed to start (${detail})`, undefined, 'start_failed');
        this.hooks.onEvent({ server: name, ...(lane ? { lane } : {}), kind: 'start_failed', detail });
        throw new LanegateError('upstream_unavailable', `upstream "${name}" failed to start: ${detail}`, { kind: 'start_failed' });
      },
    );
    inst.starting = p;
    return p;
  }

  private onExit(inst: Instance, exitDetail: string): void {
    // A child killed for not answering is reported as that, not as the signal that ended it.
    const detail = inst.killedFor ?? exitDetail;
    inst.killedFor = undefined;
    const wasStopping = inst.stopping || this.closed;
    // A child that exits during its own start failed to start: the start's failure path counts it
    // (once) and the next call retries; it is not a crash to restart in the background.
    if (inst.starting && !wasStopping) return;
    if (inst.conn) this.hooks.onGone?.(this.config.name, inst.conn, wasStopping ? 'was stopped' : `crashed (${detail})`);
    inst.conn = undefined;
    inst.surface = undefined;
    clearTimeout(inst.idleTimer);
    inst.idleTimer = undefined;
    const lane = inst.lane;
    if (wasStopping) {
      if (this.instances.get(inst.key) === inst) this.instances.delete(inst.key);
      this.hooks.onEvent({ server: this.config.name, ...(lane ? { lane } : {}), kind: 'stopped' });
      return;
    }
    noteFailure(inst, `crashed (${detail})`, undefined, 'crashed');
    this.hooks.onEvent({ server: this.config.name, ...(lane ? { lane } : {}), kind: 'crashed', detail });
    // Lists may differ after a restart: every lane served by this child re-lists.
    this.hooks.onNotification(this.config.name, this.scopeOf(inst), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    inst.restartTimer = setTimeout(
      () => {
        if (this.closed || inst.conn || inst.starting) return;
        this.start(inst).catch(() => undefined);
      },
      Math.max(0, inst.retryAt - Date.now()),
    );
    inst.restartTimer.unref();
  }

  private touch(inst: Instance): void {
    if (inst.idleTimer) {
      inst.idleTimer.refresh();
      return;
    }
    inst.idleTimer = setTimeout(() => {
      inst.idleTimer = undefined;
      // A child starting (a start slower than the idle time) or with a call in flight is not idle.
      // A shared child idles out like any other once no lane is on it (all moved off, or left the loadout).
      const busy = inst.calls > 0 || inst.starting !== undefined;
      if (busy || this.hooks.held?.(this.config.name, inst.key) || (inst.lane === undefined && inst.attached.size > 0)) this.touch(inst);
      else void this.stopInstance(inst.key);
    }, this.config.idleMs);
    inst.idleTimer.unref();
  }

  private async stopInstance(key: string, why?: string): Promise<void> {
    const inst = this.instances.get(key);
    if (!inst) return;
    inst.stopping = true;
    clearTimeout(inst.idleTimer);
    inst.idleTimer = undefined;
    if (inst.restartTimer) clearTimeout(inst.restartTimer);
    const conn = inst.conn ?? (await inst.starting?.catch(() => undefined));
    if (conn) await conn.stop(why);
    if (this.instances.get(key) === inst) this.instances.delete(key);
  }

  /**
   * A lane left this server's loadout (removed, disabled, or its loadout changed): its own children
   * stop now (not at their idle timeout) and are never restarted for it; it leaves the shared one.
   */
  async dropLanes(keep: (lane: string) => boolean): Promise<string[]> {
    const gone = [...this.instances.values()].filter((i) => i.lane !== undefined && !keep(i.lane));
    for (const inst of this.instances.values())
      if (inst.lane === undefined) for (const l of [...inst.attached]) if (!keep(l)) inst.attached.delete(l);
    for (const set of [this.escalated, this.waiting]) for (const l of [...set]) if (!keep(l)) set.delete(l);
    await Promise.all(gone.map((i) => this.stopInstance(i.key)));
    return [...new Set(gone.map((i) => i.lane as string))];
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.instances.keys()].map((k) => this.stopInstance(k)));
  }
}
