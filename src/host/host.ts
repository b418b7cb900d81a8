import type { Logger } from 'pino';
import { LanegateError } from '../errors.js';
import { escapeUntrusted } from '../log/escape.js';
import { splitPrefixed, splitPrefixedUri } from '../naming/prefix.js';
import { ERR, RpcFailure, type RpcNotification, type RpcRequest } from '../rpc/jsonrpc.js';
import type { Surface } from '../guard/scanner.js';
import { formatRefusal } from '../guard/refusal.js';
import type { UpstreamConn } from '../upstream/conn.js';
import { CALLER_IDENTITY_EXT, CALLER_META, type HostConfig } from './config.js';
import { HostGuard } from './guard.js';
import { demonstrate, preflight } from './measure.js';
import { compareInventory, describeDrift } from './inventory.js';
import type { ServerConfig } from '../policy/model.js';
import { type ChildScope, type LinkEra, ServerSlot, type SlotHooks } from './slot.js';
import { fetchSurface } from './surface-fetch.js';
import { isListMethod, LIST_FIELDS, type ListMethod, prefixItems } from './surface.js';

type Params = Record<string, unknown>;

/** The era of the lane's request, as the front states it in the caller block (legacy if unsaid). */
const callerEra = (params: Params): LinkEra =>
  ((params._meta as Params | undefined)?.[CALLER_META] as { era?: unknown } | undefined)?.era === 'modern' ? 'modern' : 'legacy';

export interface HostOut {
  notify: (method: string, params: Params) => void;
  /** Asks the front (for a lane's client) and waits for the answer. */
  request: (method: string, params: Params, timeoutMs: number) => Promise<Params>;
}

/**
 * A host: one trust domain's upstreams (or one lane's, for a per-lane domain) composed into one
 * prefixed MCP surface. It trusts the front for authentication but still checks every call
 * against the calling lane's loadout: a host never serves a lane a server it was not given.
 */
export class Host {
  private readonly slots = new Map<string, ServerSlot>();
  private readonly byPrefix = new Map<string, ServerSlot>();
  /** Upstreams refused until their surface changes (a name collision). */
  private readonly refused = new Map<string, string>();
  private readonly guard: HostGuard;
  private readonly progressOwners = new Map<string, { lane: string; token: string | number }>();
  private nextToken = 1;
  /** Upstreams withheld because their inventory drifted and the policy says onDrift: withhold. */
  private readonly withheld = new Map<string, string>();

  constructor(
    private cfg: HostConfig,
    private readonly connect: SlotHooks['connect'],
    private readonly out: HostOut,
    private readonly log: Logger,
    private readonly scratch?: (server: ServerConfig, tag: string, clientInfo?: { name: string; version: string }) => Promise<UpstreamConn>,
  ) {
    this.guard = new HostGuard(
      cfg.stateDir,
      cfg.pins ?? {},
      (server) =>
        Object.entries(this.cfg.lanes)
          .filter(([, servers]) => servers.includes(server))
          .map(([lane]) => lane),
      (r) => this.out.notify('lanegate/guard', { ...r }),
      log,
    );
    for (const s of cfg.servers) this.addSlot(s, cfg.placements[s.name] ?? 'dedicated');
  }

  private addSlot(s: ServerConfig, placement: 'shared' | 'dedicated'): void {
    const slot = new ServerSlot(s, placement, {
      connect: this.connect,
      onNotification: (server, scope, n) => this.fromUpstream(server, scope, n),
      onServerRequest: async (server, scope, r) => this.serverRequest(server, scope, r),
      onEvent: (e) => {
        this.log.info(
          { event: `upstream_${e.kind}`, server: e.server, lane: e.lane, pid: e.pid, detail: e.detail && escapeUntrusted(e.detail) },
          `upstream ${e.kind}`,
        );
        this.out.notify('lanegate/upstream', { ...e });
      },
    });
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
    for (const s of next.servers) {
      if (!this.slots.has(s.name)) {
        this.addSlot(s, next.placements[s.name] ?? 'dedicated');
        added.push(s.name);
      }
    }
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
    if (req.method === 'lanegate/processes') return { processes: this.processes() };
    if (req.method === 'lanegate/configure') return this.reconfigure(params.config as unknown as HostConfig);
    if (req.method === 'lanegate/measure') return this.measure(String(params.server ?? ''), params.demonstrate === true);
    const lane = this.callerLane(params);
    const era = callerEra(params);
    if (isListMethod(req.method)) return this.list(req.method, lane, era);
    const fwd = { lane, era, method: req.method, ...(signal ? { signal } : {}) };
    if (req.method === 'tools/call' || req.method === 'prompts/get') {
      const parts = splitPrefixed(String(params.name ?? ''));
      return this.forward(fwd, parts?.prefix, { ...params, name: parts?.rest });
    }
    if (req.method === 'completion/complete') {
      const ref = (params.ref ?? {}) as { type?: string; name?: string; uri?: string };
      const parts = ref.type === 'ref/resource' ? splitPrefixedUri(String(ref.uri ?? '')) : splitPrefixed(String(ref.name ?? ''));
      const inner = ref.type === 'ref/resource' ? { ...ref, uri: parts?.rest } : { ...ref, name: parts?.rest };
      return this.forward(fwd, parts?.prefix, { ...params, ref: inner });
    }
    if (req.method === 'resources/read' || req.method === 'resources/subscribe' || req.method === 'resources/unsubscribe') {
      const parts = splitPrefixedUri(String(params.uri ?? ''));
      return this.forward(fwd, parts?.prefix, { ...params, uri: parts?.rest });
    }
    throw new RpcFailure({ code: ERR.methodNotFound, message: `method not served: ${req.method}` });
  }

  private callerLane(params: Params): string {
    const meta = params._meta as Params | undefined;
    const caller = meta?.[CALLER_META] as { lane?: unknown } | undefined;
    const lane = typeof caller?.lane === 'string' ? caller.lane : '';
    if (!this.cfg.lanes[lane] || (this.cfg.lane !== undefined && this.cfg.lane !== lane)) {
      throw new RpcFailure({ code: ERR.notInCatalog, message: 'caller lane is not served by this host' });
    }
    return lane;
  }

  private slotsOfLane(lane: string): ServerSlot[] {
    return (this.cfg.lanes[lane] ?? []).flatMap((n) => {
      const s = this.slots.get(n);
      return s ? [s] : [];
    });
  }

  private async list(method: ListMethod, lane: string, era: LinkEra): Promise<Params> {
    this.refreshTrust();
    const field = LIST_FIELDS[method];
    const absent: { server: string; reason: string }[] = [];
    const lists = await Promise.all(
      this.slotsOfLane(lane).map(async (slot) => {
        const name = slot.config.name;
        try {
          const surface = await this.vettedSurface(slot, lane, era);
          const why = this.unavailable(name);
          if (why) {
            absent.push({ server: name, reason: why });
            return [];
          }
          const items = (surface[field] as Params[] | undefined) ?? [];
          const r = prefixItems(method, slot.config.prefix, items);
          if (!r.ok) {
            const reason = `refused: ${r.detail}`;
            this.refused.set(name, reason);
            this.log.error(
              { event: 'upstream_refused', server: name, layer: 'structural', detail: escapeUntrusted(r.detail) },
              `REFUSED upstream "${name}": ${escapeUntrusted(r.detail)}`,
            );
            absent.push({ server: name, reason });
            return [];
          }
          return r.items;
        } catch (e) {
          absent.push({ server: name, reason: e instanceof LanegateError ? e.detail : e instanceof Error ? e.message : 'unavailable' });
          return [];
        }
      }),
    );
    return { [field]: lists.flat(), _meta: { 'lanegate/absent': absent } };
  }

  /** Why an upstream is withheld right now (guard or name collision), with the remedy. */
  private unavailable(server: string): string | undefined {
    const g = this.guard.refusal(server);
    if (g) return `refused by the guard (layer ${g.layer}, ${g.tool}: ${g.finding}); see: ${g.remedy.join('; ')}`;
    return this.refused.get(server) ?? this.withheld.get(server);
  }

  /** Declared inventory: compared on every (re)start and list change; a mismatch is loud. */
  private checkInventory(cfg: ServerConfig, conn: UpstreamConn, surface: Surface): void {
    const version = typeof conn.init.serverInfo.version === 'string' ? conn.init.serverInfo.version : undefined;
    const drift = compareInventory(
      cfg.expect,
      version,
      (surface.tools ?? []).map((t) => String(t.name)),
    );
    if (!drift) {
      this.withheld.delete(cfg.name);
      return;
    }
    const line = describeDrift(cfg.name, drift);
    this.log.warn({ event: 'inventory_drift', server: cfg.name, drift, onDrift: cfg.onDrift }, line);
    this.out.notify('lanegate/inventory', { server: cfg.name, drift: { ...drift }, line, withheld: cfg.onDrift === 'withhold' });
    if (cfg.onDrift === 'withhold')
      this.withheld.set(cfg.name, `withheld: ${line}; accept the new inventory by updating servers.${cfg.name}.expect in the policy`);
  }

  private refreshTrust(): void {
    const changed = this.guard.refreshTrust();
    for (const server of changed) {
      this.out.notify('notifications/tools/list_changed', { _meta: { 'lanegate/server': server, 'lanegate/lanes': 'all' } });
    }
  }

  /** The instance's whole surface, fetched once and scanned before any of it reaches a lane. */
  private vettedSurface(slot: ServerSlot, lane: string, era: LinkEra): Promise<Surface> {
    return slot.conn(lane, era).then((conn) =>
      slot.surface(lane, era, async () => {
        const s = await fetchSurface(conn, slot.config.callTimeoutMs);
        this.checkInventory(slot.config, conn, s);
        if (this.guard.vet(slot.config.name, s) === 'refused') {
          const r = this.guard.refusal(slot.config.name);
          if (r) process.stderr.write(`${formatRefusal(r)}\n`);
        }
        return s;
      }),
    );
  }

  private async forward(
    { lane, era, method, signal }: { lane: string; era: LinkEra; method: string; signal?: AbortSignal },
    prefix: string | undefined,
    params: Params,
  ): Promise<Params> {
    const slot = prefix === undefined ? undefined : this.byPrefix.get(prefix);
    if (!slot || !(this.cfg.lanes[lane] ?? []).includes(slot.config.name)) {
      throw new RpcFailure({ code: ERR.notInCatalog, message: "not in this lane's catalog" });
    }
    this.refreshTrust();
    let conn: UpstreamConn;
    try {
      conn = await slot.conn(lane, era);
      // Nothing is called on an upstream whose surface was not vetted.
      await this.vettedSurface(slot, lane, era);
    } catch (e) {
      throw new RpcFailure({ code: ERR.unavailable, message: e instanceof LanegateError ? e.detail : 'upstream unavailable' });
    }
    const why = this.unavailable(slot.config.name);
    if (why) throw new RpcFailure({ code: ERR.unavailable, message: `upstream "${slot.config.name}" ${why}` });
    slot.attach(lane, era);
    // Progress tokens are the CLIENT's choice: two lanes may pick the same one. The host replaces
    // it with its own unique token, so a progress frame is attributed to exactly one call.
    const meta = params._meta as Params | undefined;
    const token = meta?.progressToken;
    const tracked = typeof token === 'string' || typeof token === 'number' ? `lgp-${this.nextToken++}` : undefined;
    if (tracked !== undefined) {
      this.progressOwners.set(tracked, { lane, token: token as string | number });
    }
    const sent = tracked !== undefined ? { ...params, _meta: { ...meta, progressToken: tracked } } : params;
    try {
      return await conn.request(method, this.upstreamParams(conn, lane, sent), slot.config.callTimeoutMs, signal);
    } catch (e) {
      if (e instanceof RpcFailure && (e.rpc.code === ERR.unavailable || e.rpc.code === ERR.timeout)) {
        throw new RpcFailure({ code: e.rpc.code, message: `upstream "${slot.config.name}": ${e.rpc.message}` });
      }
      throw e;
    } finally {
      if (tracked !== undefined) this.progressOwners.delete(tracked);
    }
  }

  /** A frame a shared child sent that cannot be routed to one lane: record, recycle, retreat. */
  private hazard(slot: ServerSlot, code: 'unroutable_server_request' | 'unattributable_notification', detail: string): void {
    this.log.warn(
      { event: 'hazard_observed', server: slot.config.name, code, detail: escapeUntrusted(detail) },
      `hazard on shared "${slot.config.name}": ${code}; retreating to dedicated`,
    );
    this.out.notify('lanegate/hazard', { server: slot.config.name, code });
    void slot.retreat().then(() => {
      this.out.notify('notifications/tools/list_changed', { _meta: { 'lanegate/server': slot.config.name, 'lanegate/lanes': 'all' } });
    });
  }

  /** Pre-flight (and the demonstration if the policy names a probe) on scratch processes. */
  private async measure(server: string, withProbe: boolean): Promise<Params> {
    const slot = this.slots.get(server);
    if (!slot || !this.scratch || this.cfg.lane !== undefined)
      throw new RpcFailure({ code: ERR.invalidParams, message: `"${server}" is not measurable in this host` });
    const cfg = slot.config;
    if (cfg.transport.kind !== 'stdio' || cfg.perLaneLaunch)
      throw new RpcFailure({ code: ERR.invalidParams, message: `"${server}" is not a lane-independent stdio launch` });
    const spawn = (tag: string, clientInfo?: { name: string; version: string }) =>
      (this.scratch as NonNullable<typeof this.scratch>)(cfg, tag, clientInfo);
    const pre = await preflight(spawn, cfg.callTimeoutMs);
    // The guard sees what a lane would see before any evidence can promote the server.
    const probeConn = await spawn('surface').catch(() => undefined);
    if (probeConn) {
      try {
        this.guard.vet(server, await fetchSurface(probeConn, cfg.callTimeoutMs));
      } finally {
        await probeConn.stop();
      }
    }
    const demo =
      withProbe && pre.ran && cfg.probe && cfg.probe.length > 0 ? await demonstrate(spawn, cfg.probe, cfg.callTimeoutMs) : undefined;
    return { preflight: { ...pre }, ...(demo ? { demonstration: { ...demo } } : {}) };
  }

  /** The caller block reaches a child only if it advertises the caller-identity extension. */
  private upstreamParams(conn: UpstreamConn, lane: string, params: Params): Params {
    const meta = { ...((params._meta as Params | undefined) ?? {}) };
    const caller = meta[CALLER_META] as { capabilities?: unknown } | undefined;
    delete meta[CALLER_META];
    const caps = conn.init.capabilities as { experimental?: Params; extensions?: Params };
    if (caps.experimental?.[CALLER_IDENTITY_EXT] !== undefined || caps.extensions?.[CALLER_IDENTITY_EXT] !== undefined) {
      meta[CALLER_META] = { lane };
    }
    const out: Params = { ...params };
    if (conn.modern) {
      // The upstream asks only for what the lane itself can answer.
      if (caller?.capabilities && typeof caller.capabilities === 'object')
        meta['io.modelcontextprotocol/clientCapabilities'] = caller.capabilities;
    } else {
      delete out.inputResponses;
      delete out.requestState;
    }
    if (Object.keys(meta).length > 0) out._meta = meta;
    else delete out._meta;
    return out;
  }

  private fromUpstream(server: string, scope: ChildScope, n: RpcNotification): void {
    const slot0 = this.slots.get(server);
    const lanes = scope.lanes;
    if (n.method === 'notifications/progress') {
      const token = n.params?.progressToken;
      const owner = typeof token === 'string' ? this.progressOwners.get(token) : undefined;
      if (owner) {
        // Exactly the lane (and call) it belongs to, with the token that lane chose.
        this.out.notify('lanegate/notify', {
          lane: owner.lane,
          token: owner.token,
          method: n.method,
          params: { ...n.params, progressToken: owner.token },
        });
      } else if (slot0 && scope.contested) {
        this.hazard(slot0, 'unattributable_notification', `progress for unknown token ${String(token)}`);
      }
      return; // never broadcast
    }
    if (n.method === 'notifications/message') {
      // A log line names no call: it reaches a lane only from a child that serves that lane alone.
      if (lanes !== 'all' && lanes.length === 1)
        this.out.notify('lanegate/notify', { lane: lanes[0], method: n.method, params: { ...(n.params ?? {}) } });
      return;
    }
    if (!n.method.endsWith('/list_changed')) return;
    this.refused.delete(server);
    const slot = this.slots.get(server);
    const lane = lanes === 'all' ? Object.keys(this.cfg.lanes).find((l) => this.cfg.lanes[l]?.includes(server)) : lanes[0];
    const tell = (): void => this.out.notify(n.method, { _meta: { 'lanegate/server': server, 'lanegate/lanes': lanes } });
    // Re-scan at once: a changed surface is vetted before any lane can list it again.
    if (slot && lane) void this.vettedSurface(slot, lane, scope.era).then(tell, tell);
    else tell();
  }

  private async serverRequest(server: string, scope: ChildScope, r: RpcRequest): Promise<Params> {
    if (r.method === 'ping') return {};
    const slot = this.slots.get(server);
    const lane = scope.contested ? undefined : scope.sole;
    if (lane && (r.method === 'sampling/createMessage' || r.method === 'elicitation/create' || r.method === 'roots/list')) {
      // A child that serves one lane: its request goes to that lane's client, and the answer back.
      return this.out.request('lanegate/client-request', { lane, method: r.method, params: r.params ?? {} }, 300_000);
    }
    // Over stdio a server-initiated request names no related request: with several lanes on one
    // child it cannot be routed to the right one without risking a cross-lane leak.
    if (slot && scope.contested) {
      this.hazard(slot, 'unroutable_server_request', r.method);
      throw new RpcFailure({ code: ERR.methodNotFound, message: 'refused: this shared process serves several lanes' });
    }
    this.log.warn({ event: 'server_request_refused', server, method: escapeUntrusted(r.method) }, 'server-initiated request not relayed');
    throw new RpcFailure({ code: ERR.methodNotFound, message: `lanegate does not relay ${r.method}` });
  }

  processes(): { server: string; placement: string; lane?: string; era: LinkEra; pid: number }[] {
    return [...this.slots.values()].flatMap((s) =>
      s.pids().map((p) => ({ server: s.config.name, placement: s.placement, ...(p.lane ? { lane: p.lane } : {}), era: p.era, pid: p.pid })),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.slots.values()].map((s) => s.close()));
  }
}
