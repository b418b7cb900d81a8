import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { LanegateError } from '../errors.js';
import { LinePeer, MAX_LINE } from '../rpc/peer.js';
import { resultTooLarge } from '../rpc/too-large.js';
import { largeText } from '../rpc/gc-hint.js';
import { type Piped, spawnPiped, stopPiped } from '../supervision/spawn.js';
import { CLIENT_INFO, type Era, type UpstreamConn, type UpstreamEvents } from './conn.js';
import { type Handshaken, handshake, modernEnvelope } from './handshake.js';
import { type StderrWatch, stderrReason, watchStderr } from './stderr-tail.js';

export interface StdioLaunch {
  commandPath: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface StdioOptions {
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
}

const SETPRIV = '/usr/bin/setpriv';
const STOP_GRACE_MS = 1500;
const KILL_AFTER_MS = 4000;
/** A stuck child has this long after its SIGTERM before its SIGKILL. */
const KILL_STUCK_MS = 1000;

/** The allowlisted path must still be the program itself: not gone, not a link to another one. */
const verifyCommand = (commandPath: string): void => {
  let real: string;
  try {
    real = realpathSync(commandPath);
  } catch {
    throw new LanegateError('upstream_refused', `command ${commandPath} no longer exists`);
  }
  if (real !== commandPath) {
    throw new LanegateError('upstream_refused', `command resolves to ${real}, not the allowlisted ${commandPath}`);
  }
};

/**
 * The child in its own working directory and process group (spawn.ts: a stop or kill reaches what
 * it started, and what it leaves running is stopped after it); on Linux tied to its host by
 * PR_SET_PDEATHSIG (setpriv execs in place).
 */
const spawnChild = (l: StdioLaunch): Piped => {
  mkdirSync(l.cwd, { recursive: true, mode: 0o700 });
  const usePdeath = process.platform === 'linux' && existsSync(SETPRIV);
  const file = usePdeath ? SETPRIV : l.commandPath;
  const argv = usePdeath ? ['--pdeathsig', 'KILL', '--', l.commandPath, ...l.args] : l.args;
  return spawnPiped(file, argv, { cwd: l.cwd, env: l.env, stderr: 'pipe', group: true });
};

/** JSON-RPC over the child's stdin/stdout; an answer past resultBytes is refused as it streams. */
const peerOf = (proc: Piped, ev: UpstreamEvents, opts: StdioOptions): LinePeer => {
  const limit = opts.resultBytes ?? MAX_LINE;
  return new LinePeer(
    proc.stdout,
    proc.stdin,
    {
      onNotification: (n) => ev.onNotification(n),
      onRequest: (r) => ev.onServerRequest(r),
      endReason: 'upstream process ended (crashed or exited) during the call',
      endKind: 'crashed',
      // Its stdout closes a moment before its exit is seen: the caller hears of the crash once the slot has.
      endSettles: proc.exited,
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
};

/** A failed start, with the line of the child's stderr that says why (its last words arrive after its exit: waited for, briefly). */
const startFailed = async (failed: Extract<Handshaken, { ok: false }>, stderr: StderrWatch): Promise<LanegateError> => {
  await Promise.race([stderr.ended, new Promise((r) => setTimeout(r, 500).unref())]);
  const said = stderrReason(stderr.lastWords());
  const e = failed.error;
  return new LanegateError(
    'upstream_unavailable',
    `${failed.modern ? 'server/discover' : 'initialize'} failed: ${e instanceof Error ? e.message : 'unknown'}${said ? `; its stderr: ${said}` : ''}`,
  );
};

/**
 * Launches a stdio upstream: argv array, no shell, exactly the environment given (nothing
 * inherited), a neutral working directory. On Linux the child is tied to its host with
 * PR_SET_PDEATHSIG (via setpriv, which execs in place): if the host dies, so does the child.
 */
export const launchStdio = async (l: StdioLaunch, ev: UpstreamEvents, opts: StdioOptions = {}): Promise<UpstreamConn> => {
  verifyCommand(l.commandPath);
  const proc = spawnChild(l);
  const peer = peerOf(proc, ev, opts);
  // Kept until the handshake is done: a child that dies starting says why on stderr.
  const stderr = watchStderr(proc.stderr, ev);
  let exited = false;
  void proc.exited.then((r) => {
    exited = true;
    const how = r.signal ? `signal ${r.signal}` : `exit code ${String(r.exitCode)}`;
    peer.close(`upstream process ended (${how})`, 'crashed');
    ev.onExit(how);
  });
  const stop = async (reason?: string): Promise<void> => {
    if (exited) return;
    if (reason) peer.close(reason, 'crashed');
    await stopPiped(proc, STOP_GRACE_MS, KILL_AFTER_MS);
  };
  const envelope = modernEnvelope(opts.clientInfo ?? CLIENT_INFO, opts.capabilities);
  const shaken = await handshake(peer, envelope, { ...opts, initTimeoutMs: opts.initTimeoutMs ?? 20_000 });
  if (!shaken.ok) {
    await stop();
    throw await startFailed(shaken, stderr);
  }
  stderr.forget();
  const { init, modern } = shaken;
  return {
    pid: proc.child.pid,
    init,
    request: (method, params, timeoutMs, signal) => peer.request(method, modern ? envelope(params) : params, timeoutMs, signal),
    modern,
    notify: (method, params) => peer.notify(method, params),
    stop,
    kill: (reason) => {
      if (exited) return;
      peer.close(reason, 'crashed');
      // SIGTERM at once to the child's group (a blocked Node server without a handler dies of it; what
      // npx, uvx or a script started gets it too, and a server may still stop in order), SIGKILL after a second.
      void stopPiped(proc, 0, KILL_STUCK_MS);
    },
    watchOutput: () => {
      let heard = false;
      const on = (): void => {
        heard = true;
      };
      proc.stdout.once('data', on);
      return { heard: () => heard, stop: () => proc.stdout.off('data', on) };
    },
  };
};
