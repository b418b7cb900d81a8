import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { LanegateError } from '../errors.js';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import { LinePeer, MAX_LINE } from '../rpc/peer.js';
import { resultTooLarge } from '../rpc/too-large.js';
import { largeText } from '../rpc/gc-hint.js';
import { spawnPiped, stopPiped } from '../supervision/spawn.js';
import {
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  type Era,
  MODERN_META,
  MODERN_REVISION,
  type UpstreamConn,
  type UpstreamEvents,
  type UpstreamInit,
} from './conn.js';
import { discover, initialize, listChangedFilter } from './handshake.js';
import { StderrTail, stderrReason } from './stderr-tail.js';

export interface StdioLaunch {
  commandPath: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

const SETPRIV = '/usr/bin/setpriv';
const STOP_GRACE_MS = 1500;
const KILL_AFTER_MS = 4000;

/**
 * Launches a stdio upstream: argv array, no shell, exactly the environment given (nothing
 * inherited), a neutral working directory. On Linux the child is tied to its host with
 * PR_SET_PDEATHSIG (via setpriv, which execs in place): if the host dies, so does the child.
 */
export const launchStdio = async (
  l: StdioLaunch,
  ev: UpstreamEvents,
  opts: {
    initTimeoutMs?: number;
    clientInfo?: { name: string; version: string };
    era?: Era;
    /** Try the other era when the upstream refuses the first handshake (`upstreamEra: auto`). */
    fallback?: boolean;
    /** The client capabilities declared (default: CLIENT_CAPABILITIES; a shared child gets fewer). */
    capabilities?: Record<string, unknown>;
    /** gateway.limits.resultBytes and the server's name: a longer answer is refused as it streams. */
    resultBytes?: number;
    server?: string;
  } = {},
): Promise<UpstreamConn> => {
  const initTimeoutMs = opts.initTimeoutMs ?? 20_000;
  let real: string;
  try {
    real = realpathSync(l.commandPath);
  } catch {
    throw new LanegateError('upstream_refused', `command ${l.commandPath} no longer exists`);
  }
  if (real !== l.commandPath) {
    throw new LanegateError('upstream_refused', `command resolves to ${real}, not the allowlisted ${l.commandPath}`);
  }
  mkdirSync(l.cwd, { recursive: true, mode: 0o700 });
  const usePdeath = process.platform === 'linux' && existsSync(SETPRIV);
  const file = usePdeath ? SETPRIV : l.commandPath;
  const argv = usePdeath ? ['--pdeathsig', 'KILL', '--', l.commandPath, ...l.args] : l.args;
  const proc = spawnPiped(file, argv, { cwd: l.cwd, env: l.env, stderr: 'pipe' });
  const { stdout, stdin, child } = proc;

  let exited = false;
  const limit = opts.resultBytes ?? MAX_LINE;
  const peer = new LinePeer(
    stdout,
    stdin,
    {
      onNotification: (n) => ev.onNotification(n),
      onRequest: (r) => ev.onServerRequest(r),
      endReason: 'upstream process ended (crashed or exited) during the call',
      onProtocolError: (detail) => ev.onLimit?.({ detail }),
    },
    {
      maxLine: limit,
      onLarge: (chars) => largeText().note(chars),
      oversize: (o) => {
        ev.onLimit?.({
          detail: 'answer over gateway.limits.resultBytes',
          bytes: o.bytes,
          limit,
        });
        return resultTooLarge(opts.server ?? 'upstream', o.bytes, limit);
      },
    },
  );
  // Kept until the handshake is done: a child that dies starting says why on stderr.
  let tail: StderrTail | undefined = new StderrTail();
  let stderrEnded: Promise<void> = Promise.resolve();
  if (proc.stderr) {
    proc.stderr.setEncoding('utf8');
    let errBuf = '';
    const stream = proc.stderr;
    stderrEnded = new Promise((resolve) => {
      stream.once('close', () => {
        if (errBuf) tail?.push(errBuf);
        resolve();
      });
    });
    proc.stderr.on('data', (c: string) => {
      errBuf += c;
      let i = errBuf.indexOf('\n');
      while (i >= 0) {
        ev.onStderr?.(errBuf.slice(0, i));
        tail?.push(errBuf.slice(0, i));
        errBuf = errBuf.slice(i + 1);
        i = errBuf.indexOf('\n');
      }
      if (errBuf.length > 8192) errBuf = errBuf.slice(-8192);
    });
  }
  void proc.exited.then((r) => {
    exited = true;
    const how = r.signal ? `signal ${r.signal}` : `exit code ${String(r.exitCode)}`;
    peer.close(`upstream process ended (${how})`);
    ev.onExit(how);
  });

  const stop = async (): Promise<void> => {
    if (!exited) await stopPiped(proc, STOP_GRACE_MS, KILL_AFTER_MS);
  };

  let init: UpstreamInit;
  let modern = opts.era === 'modern';
  const clientInfo = opts.clientInfo ?? CLIENT_INFO;
  // 2026-07-28: no handshake; every request carries the envelope. A caller-provided
  // clientCapabilities (the lane's own) wins over the gateway's default.
  const envelope = (params: Record<string, unknown> | undefined): Record<string, unknown> => {
    const meta = (params?._meta as Record<string, unknown> | undefined) ?? {};
    return {
      ...(params ?? {}),
      _meta: {
        [MODERN_META.protocolVersion]: MODERN_REVISION,
        [MODERN_META.clientInfo]: clientInfo,
        [MODERN_META.clientCapabilities]: opts.capabilities ?? CLIENT_CAPABILITIES,
        ...meta,
      },
    };
  };
  const handshake = (m: boolean): Promise<UpstreamInit> =>
    m ? discover(peer, envelope, initTimeoutMs) : initialize(peer, clientInfo, initTimeoutMs, opts.capabilities);
  try {
    try {
      init = await handshake(modern);
    } catch (e) {
      // `auto`: an upstream that ANSWERS the first handshake with a refusal may speak the other
      // era; one that hung up or never answered does not get a second try.
      const silent = peer.isClosed || (e instanceof RpcFailure && e.rpc.code === ERR.timeout);
      if (!opts.fallback || silent) throw e;
      modern = !modern;
      init = await handshake(modern);
    }
    if (modern) {
      // In 2026-07-28 a server sends list changes only on a subscription: hold one open for the
      // life of the link (its answer comes only when the server closes it).
      const filter = listChangedFilter(init.capabilities);
      if (filter) void peer.request('subscriptions/listen', envelope({ notifications: filter }), 0).catch(() => undefined);
    }
  } catch (e) {
    await stop();
    // Its last words arrive after its exit: wait for them, briefly.
    await Promise.race([stderrEnded, new Promise((r) => setTimeout(r, 500).unref())]);
    const said = stderrReason(tail?.all ?? []);
    throw new LanegateError(
      'upstream_unavailable',
      `${modern ? 'server/discover' : 'initialize'} failed: ${e instanceof Error ? e.message : 'unknown'}${said ? `; its stderr: ${said}` : ''}`,
    );
  }
  tail = undefined;

  return {
    pid: child.pid,
    init,
    request: (method, params, timeoutMs, signal) => peer.request(method, modern ? envelope(params) : params, timeoutMs, signal),
    modern,
    notify: (method, params) => peer.notify(method, params),
    stop,
  };
};
