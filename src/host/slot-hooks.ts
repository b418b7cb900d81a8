import { type HostOut, LINK } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import { escapeUntrusted } from '../log/escape.js';
import type { ChildFrames } from './child-frames.js';
import type { ResourceRelay } from './resource-relay.js';
import type { SlotHooks } from './slot-types.js';
import type { HostTasks } from './tasks.js';

/** The host's parts a child's frames and events go to. */
export interface SlotHookDeps {
  connect: SlotHooks['connect'];
  tasks: HostTasks;
  frames: ChildFrames;
  resources: ResourceRelay;
  log: Log;
  out: HostOut;
}

/**
 * How a host's slots report to it (the same for every slot): a child's notifications and requests
 * go to its tasks first, then to the lane; its (re)connects renew subscriptions; its events are
 * logged and told to the front.
 */
export const hostSlotHooks = ({ connect, tasks, frames, resources, log, out }: SlotHookDeps): SlotHooks => ({
  connect,
  onNotification: (server, scope, n) => void (tasks.notification(server, scope, n) || frames.notification(server, scope, n)),
  onServerRequest: async (server, scope, r) => {
    const about = tasks.inbound(server, scope, r);
    return tasks.parked(server, scope, r) ?? frames.request(server, scope, about.request, about.holder);
  },
  onConnected: (server, key, conn) => void resources.renew(server, key, conn),
  // A child holding a subscription or a task a lane has not settled is never stopped as idle.
  held: (server, key) => resources.held(server, key) || tasks.holds(server, key),
  onGone: (server, conn, detail) => tasks.childGone(server, conn, detail),
  onEvent: (e) => {
    // A start that failed or a crash is the operator's business: warn, with the child's own words.
    log[e.kind === 'start_failed' || e.kind === 'crashed' ? 'warn' : 'info'](
      { event: `upstream_${e.kind}`, server: e.server, lane: e.lane, childPid: e.pid, detail: e.detail && escapeUntrusted(e.detail) },
      `upstream ${e.kind}${e.detail ? `: ${escapeUntrusted(e.detail, 400)}` : ''}`,
    );
    out.notify(LINK.upstream, { ...e });
  },
});
