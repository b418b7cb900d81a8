import { type Exit, type Linked, spawnPiped, stopPiped } from '../../supervision/spawn.js';
import type { Logger } from 'pino';
import { ENV_ALLOWLIST, HOST_CONFIG_ENV, type HostConfig } from '../../link/config.js';
import { noteFailure } from '../../supervision/restart.js';
import { mallocEnv } from '../../supervision/malloc-env.js';
import { ERR, RpcFailure, type RpcNotification } from '../../rpc/jsonrpc.js';
import type { RawResult } from '../../rpc/raw.js';
import type { JsonText } from '../../rpc/json-text.js';
import { LINK_MAX_LINE, LinePeer } from '../../rpc/peer.js';
import { linkOrderOf } from '../../link/order.js';
import { largeText } from '../../rpc/gc-hint.js';
import { backlogOf, LINK_BACKLOG_MAX, watchLiveness } from './liveness.js';
import { ENTRIES, VERSION } from '../../install-paths.js';

/**
 * A host is mostly idle and moves small messages: a 1 MB young generation (instead of 16) keeps its
 * resident memory down at no measurable cost on the call path. Its guard's patterns are compiled
 * to machine code at their first use (V8's default first compiles each to bytecode, then again to
 * machine code on its second use: the guard's ~2 KB patterns paid both when a host vets its first
 * surfaces): a host's start cost ~90 ms less CPU (320-360 ms to 220-260, server-everything and the
 * fixture, measured interleaved), the same resident memory, the same speed warm.
 */
const HOST_V8_FLAGS = ['--max-semi-space-size=1', '--no-regexp-tier-up'];
/** The front's own environment is NOT passed on: a host gets these and its config, nothing else. */
const HOST_ENV_ALLOW = [...ENV_ALLOWLIST, 'LANEGATE_LOG_LEVEL', 'LANEGATE_LOG_FORMAT', 'LANEGATE_SPOT_CHECK_MS'];

/** A host's whole environment: the allowlisted variables of the front's, and its config. */
const hostEnv = (cfg: HostConfig): Record<string, string> => {
  // glibc's settings: the front's own where the operator set them, else lanegate's (malloc-env.ts).
  const env: Record<string, string> = mallocEnv();
  for (const k of HOST_ENV_ALLOW) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  env[HOST_CONFIG_ENV] = JSON.stringify(cfg);
  return env;
};

/** Diagnostics flags the operator started the front with (e.g. --heapsnapshot-signal) apply to hosts too. */
const diagnosticFlags = (): string[] =>
  process.execArgv.filter((a) => a.startsWith('--heapsnapshot-signal') || a.startsWith('--diagnostic-dir') || a.startsWith('--cpu-prof'));

interface HostProc {
  cfg: HostConfig;
  child?: Linked;
  peer?: LinePeer;
  ready?: Promise<LinePeer>;
  crashes: number;
  retryAt: number;
  startedAt: number;
  lastError?: string;
  stopping: boolean;
  /** Set when the host stopped answering pings (it is killed and restarted). */
  hung?: boolean;
  stopWatch?: () => void;
}

/**
 * Starts a host for `key` and returns its end of the link. The gateway starts a host process
 * (`node dist/host/entry.js --for <key>`, no CLI command); tests may run hosts in their own process
 * over the memory link.
 */
export type HostLauncher = (key: string, cfg: HostConfig, env: Record<string, string>, nodeFlags: string[]) => Linked;

/** A host process: its own entry point, the given environment only (the config travels in it). */
export const launchHostProcess: HostLauncher = (key, _cfg, env, nodeFlags) =>
  spawnPiped(process.execPath, [...nodeFlags, ...HOST_V8_FLAGS, ENTRIES.host, '--for', key], {
    env,
    stderr: 'inherit',
    sweepChildGroups: true,
  });

export interface HostEvents {
  onNotification: (hostKey: string, n: RpcNotification) => void;
  /** A request a host makes of the front (e.g. relay a server request to a lane's client). */
  onRequest?: (hostKey: string, method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
  onHostExit: (hostKey: string, detail: string) => void;
}

/**
 * The front's side of its hosts: spawns host processes (dist/host/entry.js, lazily, per key), forwards
 * requests over their stdio, restarts a crashed host with capped backoff, and fails calls fast
 * while one is down. The front never gives a host its own environment.
 */
export class HostManager {
  private readonly hosts = new Map<string, HostProc>();
  private closed = false;

  constructor(
    private readonly configFor: (key: string) => HostConfig | undefined,
    private readonly events: HostEvents,
    private readonly log: Logger,
    private readonly launch: HostLauncher = launchHostProcess,
  ) {}

  async request(
    key: string,
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const peer = await this.peer(key);
    return peer.request(method, params, timeoutMs, signal);
  }

  /** As `request`, the result left as the text the host wrote (the front passes it on unparsed). */
  async requestRaw(
    key: string,
    method: string,
    params: Record<string, unknown> | JsonText,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<RawResult> {
    const peer = await this.peer(key);
    return peer.requestRaw(method, params, timeoutMs, signal);
  }

  private peer(key: string): Promise<LinePeer> {
    const h = this.hosts.get(key);
    if (h?.peer && !h.peer.isClosed && h.child) {
      // A host that does not read its link gets no more: what the front would queue for it is memory
      // every lane shares (attack round 6: 2 GB of bodies queued toward a stuck host).
      const waiting = backlogOf(h.peer, h.child.stdin);
      if (h.hung || waiting > LINK_BACKLOG_MAX)
        return Promise.reject(
          new RpcFailure({
            code: ERR.unavailable,
            message: `host "${key}" is not reading its requests (${h.hung ? 'unresponsive; restarting' : `${waiting} bytes waiting`}); try again shortly`,
          }),
        );
      return Promise.resolve(h.peer);
    }
    if (h?.peer && !h.peer.isClosed) return Promise.resolve(h.peer);
    if (h?.ready) return h.ready;
    if (this.closed) return Promise.reject(new RpcFailure({ code: ERR.unavailable, message: 'gateway is shutting down' }));
    if (h && Date.now() < h.retryAt) {
      return Promise.reject(new RpcFailure({ code: ERR.unavailable, message: `host "${key}" ${h.lastError ?? 'failed'}; restarting` }));
    }
    const cfg = this.configFor(key);
    if (!cfg) return Promise.reject(new RpcFailure({ code: ERR.notInCatalog, message: 'no such host' }));
    return this.spawn(key, cfg, h);
  }

  private spawn(key: string, cfg: HostConfig, prev?: HostProc): Promise<LinePeer> {
    const h: HostProc = prev ?? { cfg, crashes: 0, retryAt: 0, startedAt: 0, stopping: false };
    h.cfg = cfg;
    this.hosts.set(key, h);
    const child = this.launch(key, cfg, hostEnv(cfg), diagnosticFlags());
    h.child = child;
    const peer = this.linkTo(key, child);
    void child.exited.then((r) => this.exited(key, h, peer, r));
    h.ready = this.handshake(key, h, child, peer);
    return h.ready;
  }

  /** The link to a host over its stdin/stdout: its notifications and requests go to the front's events. */
  private linkTo(key: string, child: Linked): LinePeer {
    return new LinePeer(
      child.stdout,
      child.stdin,
      {
        onNotification: (n) => this.events.onNotification(key, n),
        onRequest: (req) => {
          if (!this.events.onRequest) throw new RpcFailure({ code: ERR.methodNotFound, message: 'not served' });
          return this.events.onRequest(key, req.method, req.params ?? {});
        },
        onProtocolError: (d) => this.log.warn({ event: 'host_protocol_error', host: key, detail: d }, 'bad line from host'),
        endReason: `host "${key}" ended (crashed or exited) during the call`,
      },
      { sliced: true, bytesParts: true, maxLine: LINK_MAX_LINE, onLarge: (chars) => largeText().note(chars), orderOf: linkOrderOf },
    );
  }

  /** A host ended: its link closes; unless it was stopped, the crash is noted and a restart planned after the backoff. */
  private exited(key: string, h: HostProc, peer: LinePeer, r: Exit): void {
    h.stopWatch?.();
    peer.close(`host "${key}" exited`);
    if (h.peer === peer) h.peer = undefined;
    const detail = r.signal ? `signal ${r.signal}` : `exit code ${String(r.exitCode)}`;
    if (h.stopping || this.closed) return;
    noteFailure(h, `crashed (${detail})`);
    this.log.error({ event: 'host_crashed', host: key, detail, crashes: h.crashes }, 'host crashed');
    this.events.onHostExit(key, detail);
    const t = setTimeout(
      () => {
        if (this.closed || h.stopping || h.peer || h.ready) return;
        const cfgNow = this.configFor(key);
        if (cfgNow) this.spawn(key, cfgNow, h).catch(() => undefined);
      },
      Math.max(0, h.retryAt - Date.now()),
    );
    t.unref();
  }

  /** The link's handshake: the host is ready when it answers; one that does not is killed and the failure noted. */
  private handshake(key: string, h: HostProc, child: Linked, peer: LinePeer): Promise<LinePeer> {
    return peer
      .request(
        'initialize',
        { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lanegate-front', version: VERSION } },
        15_000,
      )
      .then(() => {
        h.peer = peer;
        h.ready = undefined;
        h.startedAt = Date.now();
        h.hung = false;
        h.stopWatch?.();
        h.stopWatch = watchLiveness(peer, (silentMs) => {
          h.hung = true;
          this.log.error({ event: 'host_unresponsive', host: key, hostPid: child.pid, silentMs }, 'host stopped answering: restarting it');
          child.kill('SIGKILL');
        });
        this.log.info({ event: 'host_started', host: key, hostPid: child.pid }, 'host started');
        return peer;
      })
      .catch((e: unknown) => {
        h.ready = undefined;
        noteFailure(h, 'failed to start');
        child.kill('SIGKILL');
        throw e instanceof RpcFailure ? e : new RpcFailure({ code: ERR.unavailable, message: `host "${key}" failed to start` });
      });
  }

  /** Starts a host now (shared domains start with the gateway). */
  async start(key: string): Promise<void> {
    await this.peer(key);
  }

  pids(): Record<string, number | undefined> {
    return Object.fromEntries([...this.hosts].map(([k, h]) => [k, h.peer && !h.peer.isClosed ? h.child?.pid : undefined]));
  }

  /** The configuration a running host was started (or last reconfigured) with. */
  configOf(key: string): HostConfig | undefined {
    return this.hosts.get(key)?.cfg;
  }

  setConfig(key: string, cfg: HostConfig): void {
    const h = this.hosts.get(key);
    if (h) h.cfg = cfg;
  }

  running(): string[] {
    return [...this.hosts].filter(([, h]) => h.peer && !h.peer.isClosed && !h.hung).map(([k]) => k);
  }

  async stop(key: string): Promise<void> {
    const h = this.hosts.get(key);
    if (!h?.child) return;
    h.stopping = true;
    await stopPiped(h.child, 7000, 10_000);
    this.hosts.delete(key);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.hosts.keys()].map((k) => this.stop(k)));
  }
}
