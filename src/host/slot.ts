import { LanegateError } from '../errors.js';
import type { ServerConfig } from '../policy/model.js';
import type { RpcNotification, RpcRequest } from '../rpc/jsonrpc.js';
import type { Placement } from '../shareability/placement.js';
import type { Surface } from '../guard/scanner.js';
import type { UpstreamConn } from '../upstream/conn.js';
import { backoffDelay, STABLE_AFTER_MS } from './backoff.js';

const SHARED_KEY = '*';

export interface SlotHooks {
  connect: (
    server: ServerConfig,
    lane: string | undefined,
    hooks: {
      onNotification: (n: RpcNotification) => void;
      onServerRequest: (r: RpcRequest) => Promise<Record<string, unknown>>;
      onExit: (detail: string) => void;
    },
  ) => Promise<UpstreamConn>;
  /** Lanes served by the child under `key` (every lane of the server if shared). */
  onNotification: (server: string, lanes: string[] | 'all', n: RpcNotification) => void;
  onServerRequest: (server: string, lanes: string[] | 'all', r: RpcRequest) => Promise<Record<string, unknown>>;
  onEvent: (event: {
    server: string;
    lane?: string;
    kind: 'started' | 'crashed' | 'stopped' | 'start_failed';
    pid?: number;
    detail?: string;
  }) => void;
}

interface Instance {
  conn?: UpstreamConn;
  starting?: Promise<UpstreamConn>;
  crashes: number;
  retryAt: number;
  lastError?: string;
  startedAt: number;
  idleTimer?: NodeJS.Timeout;
  restartTimer?: NodeJS.Timeout;
  stopping: boolean;
  /** The instance's vetted surface (fetched once, re-fetched after list_changed or a restart). */
  surface?: Promise<Surface>;
}

/**
 * One upstream server inside a host: ONE child for every lane when placed shared, one child
 * per lane when dedicated (started on that lane's first call, stopped when idle). A crashed
 * child restarts with capped backoff; meanwhile calls fail fast with an error naming it.
 */
export class ServerSlot {
  private readonly instances = new Map<string, Instance>();
  private closed = false;
  /** Lanes that have used the shared child (a hazard needs more than one attached). */
  private readonly attached = new Set<string>();

  constructor(
    readonly config: ServerConfig,
    public placement: Placement,
    private readonly hooks: SlotHooks,
  ) {}

  attach(lane: string): void {
    if (this.placement === 'shared') this.attached.add(lane);
  }

  /** The one lane using a shared child so far, if exactly one. */
  soleLane(): string | undefined {
    return this.attached.size === 1 ? [...this.attached][0] : undefined;
  }

  /** More than one lane shares the child right now: misrouted frames would cross lanes. */
  get contested(): boolean {
    return this.placement === 'shared' && this.attached.size > 1;
  }

  /** Retreat to dedicated AT ONCE: recycle the shared child; every lane's next call gets its own. */
  async retreat(): Promise<void> {
    if (this.placement === 'dedicated') return;
    this.placement = 'dedicated';
    this.attached.clear();
    await this.stopInstance(SHARED_KEY);
  }

  private keyFor(lane: string): string {
    return this.placement === 'shared' ? SHARED_KEY : lane;
  }

  async conn(lane: string): Promise<UpstreamConn> {
    if (this.closed) throw new LanegateError('upstream_unavailable', `upstream "${this.config.name}" is shutting down`);
    const key = this.keyFor(lane);
    let inst = this.instances.get(key);
    if (!inst) {
      inst = { crashes: 0, retryAt: 0, startedAt: 0, stopping: false };
      this.instances.set(key, inst);
    }
    this.touch(key, inst);
    if (inst.conn) return inst.conn;
    if (inst.starting) return inst.starting;
    const now = Date.now();
    if (now < inst.retryAt) {
      throw new LanegateError(
        'upstream_unavailable',
        `upstream "${this.config.name}" ${inst.lastError ?? 'failed'}; restarting in ${Math.ceil((inst.retryAt - now) / 100) / 10}s (crash ${inst.crashes})`,
      );
    }
    return this.start(key, inst);
  }

  /** The vetted surface of the child serving this lane, fetching it once through `load`. */
  surface(lane: string, load: () => Promise<Surface>): Promise<Surface> {
    const inst = this.instances.get(this.keyFor(lane));
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

  pids(): { lane: string | undefined; pid: number }[] {
    const out: { lane: string | undefined; pid: number }[] = [];
    for (const [key, inst] of this.instances) {
      if (inst.conn?.pid !== undefined) out.push({ lane: key === SHARED_KEY ? undefined : key, pid: inst.conn.pid });
    }
    return out;
  }

  private lanesOf(key: string): string[] | 'all' {
    return key === SHARED_KEY ? 'all' : [key];
  }

  private start(key: string, inst: Instance): Promise<UpstreamConn> {
    const lane = key === SHARED_KEY ? undefined : key;
    const name = this.config.name;
    const p = this.hooks
      .connect(this.config, lane, {
        onNotification: (n) => {
          if (n.method.endsWith('/list_changed')) inst.surface = undefined;
          this.hooks.onNotification(name, this.lanesOf(key), n);
        },
        onServerRequest: (r) => this.hooks.onServerRequest(name, this.lanesOf(key), r),
        onExit: (detail) => this.onExit(key, inst, detail),
      })
      .then(
        (conn) => {
          inst.starting = undefined;
          if (this.closed || inst.stopping) {
            void conn.stop();
            throw new LanegateError('upstream_unavailable', `upstream "${name}" stopped`);
          }
          inst.conn = conn;
          inst.startedAt = Date.now();
          inst.surface = undefined;
          const version = conn.init.serverInfo.version;
          this.hooks.onEvent({
            server: name,
            ...(lane ? { lane } : {}),
            kind: 'started',
            ...(conn.pid ? { pid: conn.pid } : {}),
            ...(typeof version === 'string' ? { version } : {}),
          });
          return conn;
        },
        (e: unknown) => {
          inst.starting = undefined;
          const detail = e instanceof LanegateError ? e.detail : 'failed to start';
          this.noteFailure(inst, `failed to start (${detail})`);
          this.hooks.onEvent({ server: name, ...(lane ? { lane } : {}), kind: 'start_failed', detail });
          throw new LanegateError('upstream_unavailable', `upstream "${name}" failed to start: ${detail}`);
        },
      );
    inst.starting = p;
    return p;
  }

  private noteFailure(inst: Instance, what: string): void {
    if (inst.startedAt > 0 && Date.now() - inst.startedAt > STABLE_AFTER_MS) inst.crashes = 0;
    inst.crashes += 1;
    inst.lastError = what;
    inst.retryAt = Date.now() + backoffDelay(inst.crashes);
  }

  private onExit(key: string, inst: Instance, detail: string): void {
    const wasStopping = inst.stopping || this.closed;
    inst.conn = undefined;
    inst.surface = undefined;
    if (inst.idleTimer) clearTimeout(inst.idleTimer);
    const lane = key === SHARED_KEY ? undefined : key;
    if (wasStopping) {
      this.instances.delete(key);
      this.hooks.onEvent({ server: this.config.name, ...(lane ? { lane } : {}), kind: 'stopped' });
      return;
    }
    this.noteFailure(inst, `crashed (${detail})`);
    this.hooks.onEvent({ server: this.config.name, ...(lane ? { lane } : {}), kind: 'crashed', detail });
    // Lists may differ after a restart: every lane served by this child re-lists.
    this.hooks.onNotification(this.config.name, this.lanesOf(key), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    inst.restartTimer = setTimeout(
      () => {
        if (this.closed || inst.conn || inst.starting) return;
        this.start(key, inst).catch(() => undefined);
      },
      Math.max(0, inst.retryAt - Date.now()),
    );
    inst.restartTimer.unref();
  }

  private touch(key: string, inst: Instance): void {
    if (this.placement === 'shared') return;
    if (inst.idleTimer) clearTimeout(inst.idleTimer);
    inst.idleTimer = setTimeout(() => void this.stopInstance(key), this.config.idleMs);
    inst.idleTimer.unref();
  }

  private async stopInstance(key: string): Promise<void> {
    const inst = this.instances.get(key);
    if (!inst) return;
    inst.stopping = true;
    if (inst.idleTimer) clearTimeout(inst.idleTimer);
    if (inst.restartTimer) clearTimeout(inst.restartTimer);
    const conn = inst.conn ?? (await inst.starting?.catch(() => undefined));
    if (conn) await conn.stop();
    this.instances.delete(key);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.instances.keys()].map((k) => this.stopInstance(k)));
  }
}
