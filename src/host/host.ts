import { childProfile } from '../guard/profile.js';
import { VERSION } from '../install-paths.js';
import { type Absence, type HostOut, LINK, type ListChanged, META } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import { unprefixRequest } from '../naming/unprefix.js';
import { ERR, RpcFailure, type RpcRequest } from '../rpc/jsonrpc.js';
import type { Surface } from '../guard/scanner.js';
import type { Era } from '../upstream/conn.js';
import type { ComparisonLauncher } from './comparison-launch.js';
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
import { isListMethod, type ListMethod } from '../link/lists.js';
import { listForLane } from './list.js';
import { processesOf } from './lane-moves.js';
import type { GateDeps } from './call-gate.js';
import { AnswerBytes } from './answer-bytes.js';
import { AnswerTurns } from './answer-turns.js';
import { type ForwardDeps, forward } from './forward.js';
import { hostSlotHooks } from './slot-hooks.js';
import { SecretGate, taskSecrets } from './secret-gate.js';
import { Coalescer } from './coalesce.js';
import { Promotions } from './promotion.js';
import { replayOn, TripwireWatch } from './tripwire-watch.js';
import { absenceOf } from './absence.js';
import { SpotChecks, spotEveryMs } from './spot-checks.js';
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
  private readonly relists = new Coalescer();
  private readonly resources = new ResourceRelay((server) => this.slots.get(server)?.config.callTimeoutMs ?? 30_000);
  private readonly frames: ChildFrames;
  /** Upstreams withheld because their inventory drifted and the policy says onDrift: withhold. */
  private readonly withheld = new Map<string, string>();
  private readonly gate: GateDeps;
  private readonly secrets: SecretGate;

  /** gateway.limits.resultBytes as this host was last configured. */
  get resultBytes(): number {
    return this.cfg.resultBytes;
  }
  private readonly promotions: Promotions;
  private readonly tripwire: TripwireWatch;
  private readonly spots: SpotChecks;
  private readonly tasks: HostTasks;
  private readonly slotHooks: SlotHooks;
  private readonly forwarding: ForwardDeps;

  constructor(
    private cfg: HostConfig,
    connect: SlotHooks['connect'],
    private readonly out: HostOut,
    private readonly log: Log,
    private readonly scratch?: ComparisonLauncher,
    /** The values of this domain's secrets: no call or answer carries one (layer three of the guard). */
    injectedSecrets: Iterable<string> = [],
  ) {
    this.secrets = new SecretGate(injectedSecrets, out, log);
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
      secrets: taskSecrets(this.secrets),
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
    const onRetreated = (server: string): void => this.retreated(server);
    const notify = out.notify.bind(out);
    this.promotions = new Promotions({ slots: () => this.slots.values(), resources: this.resources, log, notify, onRetreated });
    this.frames = new ChildFrames({
      slot: (server) => this.slots.get(server),
      // A request of a lane's server pending toward its client keeps the lane from moving (promotion.ts).
      out: { notify, request: (m, p, t) => this.promotions.around(p.lane, undefined, () => out.request(m, p, t)) } as HostOut,
      progress: this.progress,
      resources: this.resources,
      log,
      secrets: this.secrets,
      onListChanged: (server, scope, method) => this.listChanged(server, scope, method),
      onRetreated,
    });
    const hazard = (slot: ServerSlot, detail: string): void => this.frames.hazard(slot, 'tripwire', detail);
    this.tripwire = new TripwireWatch({ log, hazard, replay: scratch && replayOn(scratch) });
    const everyMs = cfg.lane === undefined ? spotEveryMs(process.env) : 0;
    this.spots = new SpotChecks({ slots: () => this.slots.values(), scratch, calls: this.tripwire.calls, hazard, log, everyMs });
    this.spots.start();
    this.slotHooks = hostSlotHooks({ connect, tasks: this.tasks, frames: this.frames, resources: this.resources, log, out });
    this.forwarding = this.forwardingDeps();
    for (const s of cfg.servers) this.addSlot(s, cfg.placements[s.name] ?? 'dedicated', cfg.scopes?.[s.name]);
  }

  /** What a forwarded call goes through (forward.ts), the host's own parts. */
  private forwardingDeps(): ForwardDeps {
    return {
      byPrefix: (prefix) => this.byPrefix.get(prefix),
      serversOf: (lane) => this.cfg.lanes[lane] ?? [],
      refreshTrust: () => this.refreshTrust(),
      vettedSurface: (slot, lane, era) => this.vettedSurface(slot, lane, era),
      gate: this.gate,
      secrets: this.secrets,
      promotions: this.promotions,
      resources: this.resources,
      tasks: this.tasks,
      progress: this.progress,
      tripwire: this.tripwire,
      answers: new AnswerBytes(() => this.cfg.answerBytes),
      turns: new AnswerTurns(() => this.cfg.answerBytes.perLane),
    };
  }

  /** Subscriptions held on a retreated shared child move to each lane's own, started now. */
  private retreated(server: string): void {
    const slot = this.slots.get(server);
    for (const { lane, era } of this.resources.retreat(server)) void slot?.conn(lane, era).catch(() => undefined);
  }

  private addSlot(s: ServerConfig, placement: 'shared' | 'dedicated', scope: string[] = []): void {
    const slot = new ServerSlot(s, placement, this.slotHooks, new Set(scope));
    this.slots.set(s.name, slot);
    this.byPrefix.set(s.prefix, slot);
  }

  /**
   * Hot reload, and the front's placements after a measure pass: adopt a new configuration without
   * touching what did not change. Unchanged servers keep their children and take their new
   * placement live (promotion.ts); removed or changed servers are stopped; loadouts switch at once.
   */
  async reconfigure(next: HostConfig): Promise<Params> {
    const same = (a: ServerConfig, b: ServerConfig): boolean => JSON.stringify(a) === JSON.stringify(b);
    const stopped: string[] = [];
    const added: string[] = [];
    const old: ServerSlot[] = [];
    for (const [name, slot] of [...this.slots]) {
      const n = next.servers.find((x) => x.name === name);
      if (!n || !same(n, slot.config)) {
        this.slots.delete(name);
        this.byPrefix.delete(slot.config.prefix);
        stopped.push(name);
        old.push(slot);
      }
    }
    // The new slots and lanes take over at once, before the old children are stopped: a call that
    // comes meanwhile runs under the new policy (it was refused as "not in this lane's catalog").
    for (const s of next.servers) {
      if (!this.slots.has(s.name)) {
        this.addSlot(s, next.placements[s.name] ?? 'dedicated', next.scopes?.[s.name]);
        added.push(s.name);
      }
    }
    this.cfg = { ...next, pins: this.cfg.pins };
    await Promise.all(old.map((slot) => slot.close()));
    // Lanes that no longer use a kept server lose their children there at once.
    for (const [name, slot] of this.slots) {
      if (added.includes(name)) continue;
      const dropped = await slot.dropLanes((lane) => next.lanes[lane]?.includes(name) === true);
      if (dropped.length > 0)
        this.log.info({ event: 'lane_children_stopped', server: name, lanes: dropped }, 'children of departed lanes stopped');
    }
    // A kept slot takes its placement and scope live: promoted, re-scoped or retreated.
    for (const [name, slot] of this.slots)
      if (!added.includes(name)) await this.promotions.place(slot, next.placements[name] ?? 'dedicated', next.scopes?.[name] ?? []);
    this.log.info({ event: 'host_reconfigured', stopped, added, lanes: Object.keys(next.lanes) }, 'host reconfigured');
    return { stopped, added };
  }

  async handle(req: RpcRequest, signal?: AbortSignal): Promise<Params> {
    const params = req.params ?? {};
    if (req.method === 'initialize') {
      return {
        protocolVersion: '2025-11-25',
        capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } },
        serverInfo: { name: 'lanegate-host', version: VERSION },
      };
    }
    if (req.method === 'ping') return {};
    if (req.method === LINK.processes) {
      return { processes: processesOf(this.slots.values()) };
    }
    if (req.method === LINK.configure) return this.reconfigure(params.config as unknown as HostConfig);
    if (req.method === LINK.sessionEnded) return this.tasks.endHolder(String(params.lane ?? ''), String(params.holder ?? ''));
    if (req.method === LINK.measure) {
      const server = String(params.server ?? '');
      const slot = this.cfg.lane === undefined ? this.slots.get(server) : undefined;
      return measureServer(slot?.config, this.scratch, params.demonstrate === true, (surface) =>
        this.guard.vet(server, surface, undefined, childProfile(true)),
      );
    }
    const { lane, era, holder, headers } = readCaller(params, this.cfg.lanes, this.cfg.lane);
    if (isListMethod(req.method)) return this.promotions.around(lane, undefined, () => this.list(req.method as ListMethod, lane, era));
    if (TASK_METHODS.has(req.method)) return this.tasks.handle(req.method, { lane, holder, era }, params, signal);
    const target = unprefixRequest(req.method, params);
    if (target)
      return this.promotions.around(lane, target.prefix === undefined ? undefined : this.byPrefix.get(target.prefix), () =>
        forward(
          this.forwarding,
          { lane, era, holder, method: req.method, ...(signal ? { signal } : {}), ...(headers ? { headers } : {}) },
          target.prefix,
          target.params,
        ),
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
    return absenceOf({ guard: this.guard, refused: this.refused, withheld: this.withheld }, server, lane);
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
        const shared = slot.sharedFor(lane);
        this.guard.vet(slot.config.name, s, shared ? undefined : lane, childProfile(shared));
        // Servers judged before this one was known are judged again with it (see revetBeside).
        for (const other of shared ? this.guard.revetBeside(slot.config.name) : [])
          this.out.notify('notifications/tools/list_changed', { _meta: { [META.server]: other, [META.lanes]: 'all' } });
        return s;
      }),
    );
  }

  /** A child's list changed: re-scan at once, so a changed surface is vetted before any lane lists it. */
  private listChanged(server: string, scope: ChildScope, method: ListChanged): void {
    this.refused.delete(server);
    for (const l of scope.lanes === 'all' ? Object.keys(this.cfg.lanes) : scope.lanes) this.refused.delete(`${server}\0${l}`);
    const slot = this.slots.get(server);
    const lanes = scope.lanes;
    const lane = lanes === 'all' ? Object.keys(this.cfg.lanes).find((l) => this.cfg.lanes[l]?.includes(server)) : lanes[0];
    const tell = (): void => this.out.notify(method, { _meta: { [META.server]: server, [META.lanes]: lanes } });
    if (!slot || !lane) {
      tell();
      return;
    }
    // Re-vetted and told at most a few times a second per child, the last time after the last change.
    this.relists.run(`${server}\0${scope.key}\0${method}`, () => this.vettedSurface(slot, lane, scope.era).then(tell, tell));
  }

  async close(): Promise<void> {
    this.spots.stop();
    await Promise.all([...this.slots.values()].map((s) => s.close()));
  }
}
