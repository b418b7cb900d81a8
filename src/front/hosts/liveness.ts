import type { LinePeer } from '../../rpc/peer.js';

/** How often the front asks each host whether it is alive, and how long an answer may take. */
const msFromEnv = (name: string, fallback: number): number => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v >= 10 ? v : fallback;
};
export const PING_EVERY_MS = msFromEnv('LANEGATE_HOST_PING_MS', 5000);
export const HUNG_AFTER_MS = msFromEnv('LANEGATE_HOST_HUNG_MS', 20_000);
/** Bytes (characters) the front may have waiting for a host that does not read its link. */
export const LINK_BACKLOG_MAX = 64 * 1024 * 1024;

/** What the front has written toward a host that the host has not read yet. */
export const backlogOf = (peer: LinePeer, stdin: { writableLength: number }): number => peer.queued + stdin.writableLength;

/**
 * Watches one host's liveness: a ping every PING_EVERY_MS; a host that has not answered one for
 * HUNG_AFTER_MS is hung (its event loop stuck in something: every lane of its domain waits on it),
 * and `onHung` is called once (the manager kills it and the crash path restarts it). A host busy
 * with one large answer still answers a ping within seconds. Returns the stop function.
 */
export const watchLiveness = (peer: LinePeer, onHung: (silentMs: number) => void): (() => void) => {
  let lastAnswer = Date.now();
  let pending = false;
  let fired = false;
  const timer = setInterval(() => {
    if (peer.isClosed) return;
    const silent = Date.now() - lastAnswer;
    if (silent >= HUNG_AFTER_MS && !fired) {
      fired = true;
      onHung(silent);
      return;
    }
    if (pending) return;
    pending = true;
    peer.request('ping', {}, HUNG_AFTER_MS).then(
      () => {
        pending = false;
        lastAnswer = Date.now();
      },
      () => {
        pending = false;
      },
    );
  }, PING_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
};
