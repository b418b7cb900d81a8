import type { HostOut } from '../link/protocol.js';
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import { type Log, liteLogger, logsArePretty } from '../log/lite.js';
import { LINK_MAX_LINE, LinePeer } from '../rpc/peer.js';
import { resultTooLarge } from '../rpc/too-large.js';
import { largeText } from '../rpc/gc-hint.js';
import { launchStdio } from '../upstream/stdio-child.js';
import { settleSweeps } from '../supervision/process-groups.js';
import { type Era, SHARED_CLIENT_CAPABILITIES, type UpstreamConn } from '../upstream/conn.js';
import type { ServerConfig } from '../policy/model.js';
import type { SlotHooks } from './slot-types.js';
import { connectHttp } from '../upstream/http-client.js';
import { openForward } from '../link/forward.js';
import { LINK } from '../link/protocol.js';
import { linkOrderOf } from '../link/order.js';
import { HOST_CONFIG_ENV, type HostConfig } from '../link/config.js';
import { Host } from './host.js';
import { stdioLaunchFor } from './launch.js';
import { comparisonLaunch, dirPairs, seenAsShared, shadowDir } from './comparison-launch.js';

/** Reads this domain's secret files: the ONLY place in lanegate where a secret value is read. */
const readSecrets = (cfg: HostConfig): Map<string, string> => {
  const out = new Map<string, string>();
  for (const s of cfg.secrets) out.set(s.name, readFileSync(s.file, 'utf8').replace(/\r?\n$/, ''));
  return out;
};

/** A host wired to its link: the Host, the peer it answers on, and how to stop it. */
export interface ServedHost {
  host: Host;
  peer: LinePeer;
  close: () => Promise<void>;
}

/** What a host reaches its upstreams with: its config, the environment it was given, its secrets, its log. */
interface Wiring {
  cfg: HostConfig;
  ambient: Record<string, string | undefined>;
  secrets: Map<string, string>;
  log: Log;
}

/** How a slot reaches its upstream: a stdio child (a shared one offered no roots) or an HTTP backend; `resultBytes` read at connect time. */
const upstreamConnector =
  (w: Wiring, resultBytes: () => number): SlotHooks['connect'] =>
  (server, lane, ev, era, fallback) => {
    const onLimit = (info: { detail: string; bytes?: number; limit?: number }): void =>
      w.log.warn({ event: 'upstream_limit', server: server.name, lane, ...info }, 'upstream went past a limit');
    if (server.transport.kind !== 'stdio') return connectHttp(server, lane, w.secrets, { ...ev, onLimit }, resultBytes());
    return launchStdio(
      stdioLaunchFor(server, lane, w.ambient, w.secrets, w.cfg.stateDir),
      {
        ...ev,
        onStderr: (line) => w.log.debug({ server: server.name, lane, stderr: line.slice(0, 2000) }, 'upstream stderr'),
        onLimit,
      },
      {
        era,
        fallback,
        resultBytes: resultBytes(),
        server: server.name,
        ...(lane === undefined ? { capabilities: SHARED_CLIENT_CAPABILITIES } : {}),
      },
    );
  };

/** A comparison process (measurement, spot check, replay): launched as the shared child, in a shadow directory (comparison-launch.ts), no lane to relay to. */
const scratchLauncher =
  (w: Wiring) =>
  async (server: ServerConfig, tag: string, clientInfo?: { name: string; version: string }, era?: Era): Promise<UpstreamConn> => {
    const shared = stdioLaunchFor(server, undefined, w.ambient, w.secrets, w.cfg.stateDir);
    const dir = shadowDir(w.cfg.stateDir, shared.cwd, tag);
    const conn = await launchStdio(
      comparisonLaunch(shared, dir),
      {
        onNotification: () => undefined,
        onServerRequest: async () => {
          throw new RpcFailure({ code: ERR.methodNotFound, message: 'not available during measurement' });
        },
        onExit: () => undefined,
      },
      // The era of the shared child it is compared with (a spot check); measurement speaks the
      // handshake era unless the upstream speaks only 2026-07-28.
      {
        era: era ?? (server.upstreamEra === 'modern' ? 'modern' : 'legacy'),
        fallback: era === undefined && server.upstreamEra === 'auto',
        capabilities: SHARED_CLIENT_CAPABILITIES,
        ...(clientInfo ? { clientInfo } : {}),
      },
    );
    return seenAsShared(conn, dirPairs(w.cfg.stateDir, dir, shared.cwd));
  };

/** The host's end of the link: the front's requests in (a forward opened here, once); no answer past the bound out. */
const linkToFront = (link: { input: Readable; output: Writable }, host: Host, cfg: HostConfig, log: Log): LinePeer =>
  new LinePeer(
    link.input,
    link.output,
    {
      // LINK.forward carries the lane's body as the front received it: opened here, once, to one shape.
      onRequest: (req, signal) => host.handle(req.method === LINK.forward ? { ...req, ...openForward(req.params ?? {}) } : req, signal),
      onProtocolError: (d) => log.warn({ event: 'front_protocol_error', detail: d }, 'bad line from front'),
    },
    {
      sliced: true,
      // A long request's middle slices wait as bytes until the line ends, then it is decoded once
      // (joinParts): decoded slices held in the young generation were copied by every collection
      // meanwhile (issue 19).
      bytesParts: true,
      maxLine: LINK_MAX_LINE,
      onLarge: (chars) => largeText().note(chars),
      // A lane's lines keep their order among that lane's only: another lane's small call passes a long one.
      orderOf: linkOrderOf,
      // What the host re-serialised may differ in length from what the child wrote (escapes): the
      // link still never carries an answer past the bound.
      maxSend: {
        chars: () => Math.min(LINK_MAX_LINE - 1024, host.resultBytes + 1024 * 1024),
        error: (chars) => resultTooLarge(cfg.domain, chars, host.resultBytes),
      },
    },
  );

/**
 * Wires a Host to a link (its input and output): the front's requests in, the host's
 * notifications and client requests out. The process entry uses stdin/stdout; tests use a
 * memory link (src/link/memory.ts) and run the host in their own process.
 */
export const serveHost = (
  cfg: HostConfig,
  link: { input: Readable; output: Writable },
  log: Log,
  env: Record<string, string | undefined> = process.env,
): ServedHost => {
  const w: Wiring = { cfg, ambient: { ...env }, secrets: readSecrets(cfg), log };
  let peer: LinePeer | undefined;
  const out = {
    notify: (method: string, params: Record<string, unknown>) => peer?.notify(method, params),
    request: (method, params, timeoutMs) =>
      peer ? peer.request(method, params, timeoutMs) : Promise.reject(new Error('no link to the front')),
  } as HostOut;
  const host: Host = new Host(
    cfg,
    upstreamConnector(w, () => host.resultBytes),
    out,
    log,
    scratchLauncher(w),
    w.secrets.values(),
  );
  const linked = linkToFront(link, host, cfg, log);
  peer = linked;
  return { host, peer: linked, close: () => host.close() };
};

/**
 * A host process (dist/host/entry.js; there is no CLI command for it): spawned by the front, never
 * by hand. Its stdin/stdout are an MCP JSON-RPC link to the front; when that link closes (the front
 * exited, even by SIGKILL) the host stops its children and exits.
 */
export const runHost = async (): Promise<void> => {
  const raw = process.env[HOST_CONFIG_ENV];
  if (!raw) {
    process.stderr.write('lanegate host is started by the gateway, not by hand\n');
    process.exit(2);
  }
  delete process.env[HOST_CONFIG_ENV];
  const cfg = JSON.parse(raw) as HostConfig;
  // JSON lines from a few-line logger; pino (and its pretty printer) only for a terminal.
  const log: Log = logsArePretty() ? (await import('../log/logger.js')).createLogger(`host:${cfg.key}`) : liteLogger(`host:${cfg.key}`);
  const served = serveHost(cfg, { input: process.stdin, output: process.stdout }, log);

  let stopping = false;
  const shutdown = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ event: 'host_stopping', why }, 'host stopping');
    const hard = setTimeout(() => process.exit(0), 6000);
    hard.unref();
    await served.close();
    // What the children left running gets its SIGTERM's second before the SIGKILL (process-groups.ts).
    await settleSweeps();
    process.exit(0);
  };
  process.stdin.on('end', () => void shutdown('front closed the link'));
  process.stdin.on('close', () => void shutdown('front closed the link'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // A terminal's hangup is the front's to act on (it reloads); the link decides this host's life.
  // Unhandled, SIGHUP would end the host at once, with no stop of its children's groups.
  process.on('SIGHUP', () => undefined);
  // Belt and braces: if we were re-parented, the front is gone.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown('front exited');
  }, 1000).unref();
  log.info({ event: 'host_ready', domain: cfg.domain, lane: cfg.lane, servers: cfg.servers.map((s) => s.name) }, 'host ready');
};
