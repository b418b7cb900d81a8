import type { ServerConfig } from '../policy/model.js';
import { unansweredInTime } from '../rpc/endpoint.js';
import type { UpstreamConn } from '../upstream/conn.js';
import type { Instance } from './slot-types.js';

/** Longest a child whose call timed out has to answer a ping before it is taken for stuck. */
export const STUCK_PING_MS = 10_000;

/**
 * One of this child's calls got no answer in time: the child gets one ping, to be answered within
 * the server's callTimeout (at most STUCK_PING_MS). A child that answers (even with an error) was
 * only slow at that call. One that does not is stuck (a busy loop, a deadlock, an event loop
 * blocked) and every later call would wait out its timeout too: it is killed, the calls still on it
 * fail saying why, and it restarts as a crashed child does (with the crash backoff), its crash
 * reported as `inst.killedFor`. `current`: whether `link` is still the instance's live child.
 */
export const pingAfterTimeout = async (
  inst: Instance,
  link: UpstreamConn,
  config: Pick<ServerConfig, 'name' | 'callTimeoutMs'>,
  current: () => boolean,
): Promise<void> => {
  if (inst.pinging || !link.kill || !current()) return;
  inst.pinging = true;
  const ms = Math.min(STUCK_PING_MS, config.callTimeoutMs);
  try {
    await link.request('ping', undefined, ms);
  } catch (e) {
    if (!unansweredInTime(e) || !current()) return;
    inst.killedFor = `stuck: a call timed out and a ping got no answer within ${ms / 1000} s`;
    link.kill(`upstream "${config.name}" is ${inst.killedFor}; it is restarted`);
  } finally {
    inst.pinging = false;
  }
};
