import type { Logger } from 'pino';
import { LanegateError } from '../errors.js';
import { escapeUntrusted } from '../log/escape.js';
import { splitPrefixed, splitPrefixedUri } from '../naming/prefix.js';
import { ERR, RpcFailure, type RpcNotification, type RpcRequest } from '../rpc/jsonrpc.js';
import type { UpstreamConn } from '../upstream/conn.js';
import { CALLER_IDENTITY_EXT, CALLER_META, type HostConfig } from './config.js';
import { ServerSlot, type SlotHooks } from './slot.js';
import { isListMethod, LIST_FIELDS, type ListMethod, prefixItems } from './surface.js';

type Params = Record<string, unknown>;
const MAX_PAGES = 100;

export interface HostOut {
  notify: (method: string, params: Params) => void;
}

/**
 * A host: one trust domain's upstreams (or one lane's, for a per-lane domain) composed into one
 * prefixed MCP surface. It trusts the front for authentication but still checks every call
 * against the calling lane's loadout: a host never serves a lane a server it was not given.
 */
export class Host {
  private readonly slots = new Map<string, ServerSlot>();
  private readonly byPrefix = new Map<string, ServerSlot>();
  /** Upstreams refused for this host's life or until their surface changes (e.g. a name collision). */
  private readonly refused = new Map<string, string>();

  constructor(
    private readonly cfg: HostConfig,
    connect: SlotHooks['connect'],
    private readonly out: HostOut,
    private readonly log: Logger,
  ) {
    for (const s of cfg.servers) {
      const slot = new ServerSlot(s, cfg.placements[s.name] ?? 'dedicated', {
        connect,
        onNotification: (server, lanes, n) => this.fromUpstream(server, lanes, n),
        onServerRequest: async (server, _lanes, r) => this.serverRequest(server, r),
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
  }

  async handle(req: RpcRequest): Promise<Params> {
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
    const lane = this.callerLane(params);
    if (isListMethod(req.method)) return this.list(req.method, lane);
    if (req.method === 'tools/call' || req.method === 'prompts/get') {
      const parts = splitPrefixed(String(params.name ?? ''));
      return this.forward(lane, parts?.prefix, req.method, { ...params, name: parts?.rest });
    }
    if (req.method === 'resources/read' || req.method === 'resources/subscribe' || req.method === 'resources/unsubscribe') {
      const parts = splitPrefixedUri(String(params.uri ?? ''));
      return this.forward(lane, parts?.prefix, req.method, { ...params, uri: parts?.rest });
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

  private async list(method: ListMethod, lane: string): Promise<Params> {
    const field = LIST_FIELDS[method];
    const absent: { server: string; reason: string }[] = [];
    const lists = await Promise.all(
      this.slotsOfLane(lane).map(async (slot) => {
        const name = slot.config.name;
        const refusal = this.refused.get(name);
        if (refusal) {
          absent.push({ server: name, reason: refusal });
          return [];
        }
        try {
          const conn = await slot.conn(lane);
          if (!this.supports(conn, method)) return [];
          let items = slot.cached(lane, method);
          if (!items) {
            items = await this.fetchAll(conn, method, field, slot.config.callTimeoutMs);
            slot.cache(lane, method, items);
          }
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

  private supports(conn: UpstreamConn, method: ListMethod): boolean {
    const caps = conn.init.capabilities;
    if (method === 'tools/list') return caps.tools !== undefined;
    if (method === 'prompts/list') return caps.prompts !== undefined;
    return caps.resources !== undefined;
  }

  private async fetchAll(conn: UpstreamConn, method: ListMethod, field: string, timeoutMs: number): Promise<Params[]> {
    const all: Params[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const r = await conn.request(method, cursor ? { cursor } : undefined, timeoutMs);
      const items = r[field];
      if (Array.isArray(items)) all.push(...(items as Params[]));
      cursor = typeof r.nextCursor === 'string' && r.nextCursor.length > 0 ? r.nextCursor : undefined;
      if (!cursor) break;
    }
    return all;
  }

  private async forward(lane: string, prefix: string | undefined, method: string, params: Params): Promise<Params> {
    const slot = prefix === undefined ? undefined : this.byPrefix.get(prefix);
    if (!slot || !(this.cfg.lanes[lane] ?? []).includes(slot.config.name)) {
      throw new RpcFailure({ code: ERR.notInCatalog, message: "not in this lane's catalog" });
    }
    const refusal = this.refused.get(slot.config.name);
    if (refusal) throw new RpcFailure({ code: ERR.unavailable, message: `upstream "${slot.config.name}" ${refusal}` });
    let conn: UpstreamConn;
    try {
      conn = await slot.conn(lane);
    } catch (e) {
      throw new RpcFailure({ code: ERR.unavailable, message: e instanceof LanegateError ? e.detail : 'upstream unavailable' });
    }
    return conn.request(method, this.upstreamParams(conn, lane, params), slot.config.callTimeoutMs).catch((e: unknown) => {
      if (e instanceof RpcFailure && (e.rpc.code === ERR.unavailable || e.rpc.code === ERR.timeout)) {
        throw new RpcFailure({ code: e.rpc.code, message: `upstream "${slot.config.name}": ${e.rpc.message}` });
      }
      throw e;
    });
  }

  /** The caller block reaches a child only if it advertises the caller-identity extension. */
  private upstreamParams(conn: UpstreamConn, lane: string, params: Params): Params {
    const meta = { ...((params._meta as Params | undefined) ?? {}) };
    delete meta[CALLER_META];
    const caps = conn.init.capabilities as { experimental?: Params; extensions?: Params };
    if (caps.experimental?.[CALLER_IDENTITY_EXT] !== undefined || caps.extensions?.[CALLER_IDENTITY_EXT] !== undefined) {
      meta[CALLER_META] = { lane };
    }
    const out: Params = { ...params };
    if (Object.keys(meta).length > 0) out._meta = meta;
    else delete out._meta;
    return out;
  }

  private fromUpstream(server: string, lanes: string[] | 'all', n: RpcNotification): void {
    if (n.method.endsWith('/list_changed')) {
      if (n.method === 'notifications/tools/list_changed') this.refused.delete(server);
      this.out.notify(n.method, { _meta: { 'lanegate/server': server, 'lanegate/lanes': lanes } });
    }
  }

  private async serverRequest(server: string, r: RpcRequest): Promise<Params> {
    if (r.method === 'ping') return {};
    this.log.warn({ event: 'server_request_refused', server, method: escapeUntrusted(r.method) }, 'server-initiated request not relayed');
    throw new RpcFailure({ code: ERR.methodNotFound, message: `lanegate does not relay ${r.method} to lanes yet` });
  }

  processes(): { server: string; placement: string; lane?: string; pid: number }[] {
    return [...this.slots.values()].flatMap((s) =>
      s.pids().map((p) => ({ server: s.config.name, placement: s.placement, ...(p.lane ? { lane: p.lane } : {}), pid: p.pid })),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.slots.values()].map((s) => s.close()));
  }
}
