import { type Absence, type HostOut, LINK, type ListChanged, META } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import { escapeUntrusted } from '../log/escape.js';
import { unprefixRequest } from '../naming/unprefix.js';
import { ERR, RpcFailure, type RpcRequest } from '../rpc/jsonrpc.js';
import type { Surface } from '../guard/scanner.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import type { HostConfig } from '../link/config.js';
import { HostGuard } from './guard.js';
import { measureServer } from './measure.js';
import { checkInventory } from './inventory.js';
import type { ServerConfig } from '../policy/model.js';
import { type ChildScope, ServerSlot, type SlotHooks } from './slot.js';
import { ProgressTokens } from './progress-tokens.js';
import { ResourceRelay } from './resource-relay.js';
import { readCaller } from './caller.js';
import { ChildFrames } from './child-frames.js';
import { fetchSurface } from './surface-fetch.js';
import { upstreamParams } from './upstream-params.js';
import { isListMethod, type ListMethod } from '../link/lists.js';
import { prefixResultUris } from './surface.js';
import { listForLane } from './list.js';
import { processesOf } from './lane-moves.js';
import { admitCall, type GateDeps } from './call-gate.js';
import { HostTasks, TASK_METHODS } from './tasks.js';

type Params = Record<string, unknown>;

/**
 * A host: one trust domain's upstreams (or one lane's, for a per-lane domain) composed into one
 * prefixed MCP surface. It trusts the front for authentication but still checks every call
 * against the calling lane's loadout: a host never serves a lane a server it was not given.
 */
export class Host {
  private readonly slots = new Map<string, ServerSlot>();
  private readonly byPrefix = new Map<string, ServerSlot>();
  /**
   * Upstreams refused until their surface changes (a name collision): by server, or by
   * `server\0lane` when the colliding surface was a lane's own child's.
   */
  private readonly refused = new Map<string, string>();
  private readonly guard: HostGuard;
  private readonly progress = new ProgressTokens();
  private readonly resources = new ResourceRelay((server) => this.slots.get(server)?.config.callTimeoutMs ?? 30_000);
  private readonly frames: ChildFrames;
  /** Upstreams withheld because their inventory drifted and the policy says onDrift: withhold. */
  private readonly withheld = new Map<string, string>();
  private readonly gate: GateDeps;
  private readonly tasks: HostTasks;

  constructor(
    private cfg: HostConfig,
    private readonly connect: SlotHooks['connect'],
    private readonly out: HostOut,
    private readonly log: Log,
    private readonly scratch?: (server: ServerConfig, tag: string, clientInfo?: { name: string; version: string }) => Promise<UpstreamConn>,
  ) {
    this.gate = {
      vettedSurface: (slot, lane, era) => this.vettedSurface(slot, lane, era),
      unavailable: (server, lane) => this.unavailable(server, lane),
      resources: this.resources,
      log,
      notify: out.notify.bind(out),
    };
    this.tasks = new HostTasks({
      byPrefix: (prefix) => this.byPrefix.get(prefix),
      serversOf: (lane) => this.cfg.lanes[lane] ?? [],
      notify: out.notify.bind(out),
      log,
    });
    this.guard = new HostGuard(
      cfg.stateDir,
      cfg.pins ?? {},
      (server) =>
        Object.entries(this.cfg.lanes)
          .filter(([, servers]) => servers.includes(server))
          .map(([lane]) => lane),
      (r) => this.out.notify(LINK.guard, { ...r }),
      log,
    );
    this.frames = new ChildFrames({
      slot: (server) => this.slots.get(server),
      out,
      progress: this.progress,
      resources: this.resources,
      log,
      onListChanged: (server, scope, method) => this.listChanged(server, scope, method),
      // Subscriptions held on a retreated shared child move to each lane's own, started now.
      onRetreated: (server) => {
        const slot = this.slots.get(server);
        for (const { lane, era } of this.resources.retreat(server)) void slot?.conn(lane, era).catch(() => undefined);
      },
    });
    for (const s of cfg.servers) this.addSlot(s, cfg.placements[s.name] ?? 'dedicated', cfg.scopes?.[s.name]);
  }

  private addSlot(s: ServerConfig, placement: 'shared' | 'dedicated', scope: string[] = []): void {
    const slot = new ServerSlot(
      s,
      placement,
      {
        connect: this.connect,
        onNotification: (server, scope, n) =>
          void (this.tasks.notification(server, scope, n) || this.frames.notification(server, scope, n)),
        onServerRequest: async (server, scope, r) => {
          const about = this.tasks.inbound(server, scope, r);
          return this.tasks.parked(server, scope, r) ?? this.frames.request(server, scope, about.request, about.holder);
        },
        onConnected: (server, key, conn) => void this.resources.renew(server, key, conn),
        // A child holding a subscription or a task a lane has not settled is never stopped as idle.
        held: (server, key) => this.resources.held(server, key) || this.tasks.holds(server, key),
        onGone: (server, conn, detail) => this.tasks.childGone(server, conn, detail),
        onEvent: (e) => {
          this.log.info(
            { event: `upstream_${e.kind}`, server: e.server, lane: e.lane, childPid: e.pid, detail: e.detail && escapeUntrusted(e.detail) },
            `upstream ${e.kind}`,
          );
          this.out.notify(LINK.upstream, { ...e });
        },
      },
      new Set(scope),
    );
    this.slots.set(s.name, slot);
    this.byPrefix.set(s.prefix, slot);
  }

  /**
   * Hot reload: adopt a new configuration without touching what did not change. Unchanged
   * servers keep their children (and their placement: promotion happens only at host start);
   * removed or changed servers are stopped; loadouts switch at once.
   */
  async reconfigure(next: HostConfig): Promise<Params> {
    const same = (a: ServerConfig, b: ServerConfig): boolean => JSON.stringify(a) === JSON.stringify(b);
    const stopped: string[] = [];
    const added: string[] = [];
    for (const [name, slot] of [...this.slots]) {
      const n = next.servers.find((x) => x.name === name);
      if (!n || !same(n, slot.config)) {
        this.slots.delete(name);
        this.byPrefix.delete(slot.config.prefix);
        stopped.push(name);
        await slot.close();
      }
    }
    // Lanes that no longer use a kept server lose their children there at once.
    for (const [name, slot] of this.slots) {
      const dropped = await slot.dropLanes((lane) => next.lanes[lane]?.includes(name) === true);
      if (dropped.length > 0)
        this.log.info({ event: 'lane_children_stopped', server: name, lanes: dropped }, 'children of departed lanes stopped');
    }
    for (const s of next.servers) {
      if (!this.slots.has(s.name)) {
        this.addSlot(s, next.placements[s.name] ?? 'dedicated', next.scopes?.[s.name]);
        added.push(s.name);
      }
    }
    // A kept slot keeps its placement and scope (they change only when a host starts).
    this.cfg = { ...next, pins: this.cfg.pins };
    this.log.info({ event: 'host_reconfigured', stopped, added, lanes: Object.keys(next.lanes) }, 'host reconfigured');
    return { stopped, added };
  }

  async handle(req: RpcRequest, signal?: AbortSignal): Promise<Params> {
    const params = req.params ?? {};
    if (req.method === 'initialize') {
      return {
        protocolVersion: '2025-11-25',
        capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } },
        serverInfo: { name: 'lanegate-host', version: '0.1.0' },
      };
    }
    if (req.method === 'ping') return {};
    if (req.method === LINK.processes) {
      return { processes: processesOf(this.slots.values()) };
    }
    if (req.method === LINK.configure) return this.reconfigure(params.config as unknown as HostConfig);
    if (req.method === LINK.measure) {
      const server = String(params.server ?? '');
      const slot = this.cfg.lane === undefined ? this.slots.get(server) : undefined;
      return measureServer(slot?.config, this.scratch, params.demonstrate === true, (surface) => this.guard.vet(server, surface));
    }
    const { lane, era, holder, headers } = readCaller(params, this.cfg.lanes, this.cfg.lane);
    if (isListMethod(req.method)) return this.list(req.method, lane, era);
    if (TASK_METHODS.has(req.method)) return this.tasks.handle(req.method, { lane, holder, era }, params, signal);
    const target = unprefixRequest(req.method, params);
    if (target)
      return this.forward(
        { lane, era, holder, method: req.method, ...(signal ? { signal } : {}), ...(headers ? { headers } : {}) },
        target.prefix,
        target.params,
      );
    throw new RpcFailure({ code: ERR.methodNotFound, message: `method not served: ${req.method}` });
  }

  private slotsOfLane(lane: string): ServerSlot[] {
    return (this.cfg.lanes[lane] ?? []).flatMap((n) => {
      const s = this.slots.get(n);
      return s ? [s] : [];
    });
  }

  private list(method: ListMethod, lane: string, era: Era): Promise<Params> {
    this.refreshTrust();
    return listForLane(
      {
        slots: this.slotsOfLane(lane),
        surface: (slot) => this.vettedSurface(slot, lane, era),
        unavailable: (server) => this.unavailable(server, lane),
        refuse: (server, reason) => {
          const slot = this.slots.get(server);
          this.refused.set(slot && !slot.sharedFor(lane) ? `${server}\0${lane}` : server, reason);
        },
        log: this.log,
      },
      method,
    );
  }

  /** Why an upstream is withheld right now (guard, name collision or drift), with the remedy. */
  private unavailable(server: string, lane?: string): Omit<Absence, 'server'> | undefined {
    const g = this.guard.refusal(server, lane);
    if (g)
      return {
        code: 'refused',
        item: g.item ?? g.tool,
        // The item's name is the server's (or, on a lane's own child, the lane's) choice: escaped and short.
        reason: `refused by the guard (layer ${g.layer}, ${escapeUntrusted(g.tool, 120)}: ${g.finding}); see: ${g.remedy.join('; ')}`,
      };
    const collision = this.refused.get(server) ?? (lane === undefined ? undefined : this.refused.get(`${server}\0${lane}`));
    if (collision) return { code: 'collision', reason: collision };
    const drift = this.withheld.get(server);
    return drift ? { code: 'drift', reason: drift } : undefined;
  }

  private refreshTrust(): void {
    const changed = this.guard.refreshTrust();
    for (const { server, lane } of changed) {
      this.out.notify('notifications/tools/list_changed', { _meta: { [META.server]: server, [META.lanes]: lane ? [lane] : 'all' } });
    }
  }

  /** The instance's whole surface, fetched once and scanned before any of it reaches a lane. */
  private vettedSurface(slot: ServerSlot, lane: string, era: Era): Promise<Surface> {
    return slot.conn(lane, era).then((conn) =>
      slot.surface(lane, era, async () => {
        const s = await fetchSurface(conn, slot.config.callTimeoutMs);
        checkInventory(slot.config, conn, s, { log: this.log, notify: this.out.notify.bind(this.out), withheld: this.withheld });
        // A refusal is logged by the guard as one structured event (guard_refused).
        // A lane's own child is judged for that lane; a shared child for every lane it serves.
        this.guard.vet(slot.config.name, s, slot.sharedFor(lane) ? undefined : lane);
        return s;
      }),
    );
  }

  private async forward(
    {
      lane,
      era,
      holder,
      method,
      signal,
      headers,
    }: { lane: string; era: Era; holder: string; method: string; signal?: AbortSignal; headers?: Record<string, string> },
    prefix: string | undefined,
    params: Params,
  ): Promise<Params> {
    const slot = prefix === undefined ? undefined : this.byPrefix.get(prefix);
    if (!slot || !(this.cfg.lanes[lane] ?? []).includes(slot.config.name)) {
      throw new RpcFailure({ code: ERR.notInCatalog, message: "not in this lane's catalog" });
    }
    this.refreshTrust();
    const conn = await admitCall(this.gate, slot, { lane, era, method, ...(headers ? { headers } : {}) }, params);
    slot.attach(lane, era);
    if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
      const on = method === 'resources/subscribe';
      await this.resources.change(slot.config.name, slot.keyFor(lane, era), conn, String(params.uri ?? ''), { lane, holder }, on);
      return {};
    }
    const meta = params._meta as Params | undefined;
    // A task-augmented call: the task is recorded as this lane's and session's, under an id of ours.
    const who = { lane, holder, era };
    const call = await this.tasks.asTask(slot, conn, () => this.vettedSurface(slot, lane, era).catch(() => undefined), who, method, params);
    const tracked = this.progress.track(lane, meta?.progressToken);
    const sent = tracked !== undefined ? { ...call.params, _meta: { ...meta, progressToken: tracked } } : call.params;
    try {
      const result = await conn.request(method, upstreamParams(conn, lane, sent), slot.config.callTimeoutMs, signal);
      if (call.task) return this.tasks.adopt(slot, slot.keyFor(lane, era), conn, who, call.params, result);
      return prefixResultUris(method, slot.config.prefix, result);
    } catch (e) {
      if (e instanceof RpcFailure && (e.rpc.code === ERR.unavailable || e.rpc.code === ERR.timeout)) {
        throw new RpcFailure({ code: e.rpc.code, message: `upstream "${slot.config.name}": ${e.rpc.message}` });
      }
      throw e;
    } finally {
      this.progress.release(tracked);
    }
  }

  /** A child's list changed: re-scan at once, so a changed surface is vetted before any lane lists it. */
  private listChanged(server: string, scope: ChildScope, method: ListChanged): void {
    this.refused.delete(server);
    for (const l of scope.lanes === 'all' ? Object.keys(this.cfg.lanes) : scope.lanes) this.refused.delete(`${server}\0${l}`);
    const slot = this.slots.get(server);
    const lanes = scope.lanes;
    const lane = lanes === 'all' ? Object.keys(this.cfg.lanes).find((l) => this.cfg.lanes[l]?.includes(server)) : lanes[0];
    const tell = (): void => this.out.notify(method, { _meta: { [META.server]: server, [META.lanes]: lanes } });
    if (slot && lane) void this.vettedSurface(slot, lane, scope.era).then(tell, tell);
    else tell();
  }

  async close(): Promise<void> {
    await Promise.all([...this.slots.values()].map((s) => s.close()));
  }
}
