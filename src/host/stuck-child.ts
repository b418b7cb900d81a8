import type { ServerConfig } from '../policy/model.js';
import { unansweredInTime } from '../rpc/endpoint.js';
import type { UpstreamConn } from '../upstream/conn.js';
import type { Instance } from './slot-types.js';

/** Longest a child whose call timed out has to answer a ping (or write anything) before it is taken for stuck. */
export const STUCK_PING_MS = 10_000;
/** ...and shortest, whatever its callTimeout: a loaded host may read its answer late. */
export const STUCK_PING_MIN_MS = 5_000;

/**
 * One of this child's calls got no answer in time: the child gets one ping, to be answered within
 * its callTimeout, bounded to [STUCK_PING_MIN_MS, STUCK_PING_MS]. A child that answers (even with
 * an error), or writes anything at all meanwhile (its answer may wait behind its other output on
 * a loaded host), was only slow at that call. One that does neither is stuck (a busy loop, a
 * deadlock, an event loop blocked) and every later call would wait out its timeout too: it is
 * killed, the calls still on it fail saying why, and it restarts as a crashed child does (with the
 * crash backoff), its crash reported as `inst.killedFor`. Stdio children only (`kill`). `current`:
 * whether `link` is still the instance's live child.
 */
export const pingAfterTimeout = async (
  inst: Instance,
  link: UpstreamConn,
  config: Pick<ServerConfig, 'name' | 'callTimeoutMs'>,
  current: () => boolean,
): Promise<void> => {
  if (inst.pinging || !link.kill || !current()) return;
  inst.pinging = true;
  const ms = Math.min(STUCK_PING_MS, Math.max(STUCK_PING_MIN_MS, config.callTimeoutMs));
  // Anything it writes meanwhile shows it is alive, even while its answer waits behind its other output.
  const output = link.watchOutput?.();
  try {
    await link.request('ping', undefined, ms);
  } catch (e) {
    if (!unansweredInTime(e) || !current() || output?.heard()) return;
    inst.killedFor = `stuck: a call timed out and a ping got no answer within ${ms / 1000} s`;
    link.kill(`upstream "${config.name}" is ${inst.killedFor}; it is restarted`);
  } finally {
    output?.stop();
    inst.pinging = false;
  }
};
