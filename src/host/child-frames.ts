import { LINK, type ListChanged, META } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import { escapeUntrusted } from '../log/escape.js';
import { prefixUri } from '../naming/prefix.js';
import { ERR, RpcFailure, type RpcNotification, type RpcRequest } from '../rpc/jsonrpc.js';
import { turn } from '../rpc/turn.js';
import { routeNotification, routeServerRequest } from './frame-routing.js';
import type { HostOut } from '../link/protocol.js';
import type { ProgressTokens } from './progress-tokens.js';
import type { ResourceRelay } from './resource-relay.js';
import type { ChildScope, ServerSlot } from './slot.js';
import type { SecretGate } from './secret-gate.js';

type Params = Record<string, unknown>;

export interface ChildFrameDeps {
  slot: (server: string) => ServerSlot | undefined;
  out: HostOut;
  progress: ProgressTokens;
  resources: ResourceRelay;
  log: Log;
  /** Scans a lane's answer (sampling, elicitation) before it goes up to the child. */
  secrets?: SecretGate;
  /** A child's list changed: its surface is re-vetted before the front is told. */
  onListChanged: (server: string, scope: ChildScope, method: ListChanged) => void;
  /** The server retreated to dedicated children (after its shared ones stopped). */
  onRetreated: (server: string) => void;
}

/**
 * What a child sends on its own (notifications, and requests of its client), carried to exactly
 * the lane, call or holder it belongs to — or, when that cannot be known on a child several lanes
 * use, recorded as a hazard: the child is recycled and the server runs dedicated from then on.
 */
export class ChildFrames {
  /** Per child: its notifications still being checked, in order (see deliver). */
  private readonly notices = new Map<string, Promise<void>>();

  constructor(private readonly d: ChildFrameDeps) {}

  notification(server: string, scope: ChildScope, n: RpcNotification): void {
    const slot = this.d.slot(server);
    // Only a token this very child was given attributes its progress (a token of a call on another child does not).
    const owner = this.d.progress.owner(n.params?.progressToken, scope.key);
    const route = routeNotification(scope, n.method, owner !== undefined);
    if (route.kind === 'to_call' && owner) {
      // Exactly the lane (and call) it belongs to, with the token that lane chose.
      this.deliver(slot, `${server} ${scope.key}`, owner.lane, n, (seen) => {
        const params = { ...seen, progressToken: owner.token };
        this.d.out.notify(LINK.notify, { lane: owner.lane, token: owner.token, method: n.method, params });
      });
    } else if (route.kind === 'to_lane') {
      this.deliver(slot, `${server} ${scope.key}`, route.lane, n, (seen) =>
        this.d.out.notify(LINK.notify, { lane: route.lane, method: n.method, params: { ...seen } }),
      );
    } else if (route.kind === 'hazard' && slot) {
      // Progress for a call this very child served, after the call ended: late, not foreign. Dropped.
      const was = this.d.progress.retiredCall(n.params?.progressToken);
      if (was !== undefined && was.child === scope.key) return;
      this.hazard(slot, 'unattributable_notification', `progress for unknown token ${String(n.params?.progressToken)}`);
    } else if (route.kind === 'resource_updated' && slot) {
      const uri = String(n.params?.uri ?? '');
      const byLane = new Map<string, string[]>();
      for (const h of this.d.resources.holders(server, scope.key, uri)) {
        if (scope.lanes === 'all' || scope.lanes.includes(h.lane)) byLane.set(h.lane, [...(byLane.get(h.lane) ?? []), h.holder]);
      }
      const params = { ...(n.params ?? {}), uri: prefixUri(slot.config.prefix, uri) };
      for (const [lane, holders] of byLane) this.d.out.notify(LINK.laneEvent, { lane, holders, method: n.method, params });
    } else if (route.kind === 'acknowledged') {
      this.d.resources.acknowledged(server, scope.key, n.params);
    } else if (route.kind === 'list_changed') {
      this.d.onListChanged(server, scope, n.method as ListChanged);
    }
  }

  /**
   * Sends a notification for one lane once its secret check passes it (redacted, maybe), in the
   * order the child sent them: one holding long text is read a step at a time (secret-gate.ts), and
   * the child's notifications after it wait for it instead of overtaking it.
   */
  private deliver(slot: ServerSlot | undefined, key: string, lane: string, n: RpcNotification, send: (seen: Params) => void): void {
    const params = n.params ?? {};
    const seen = slot && this.d.secrets ? this.d.secrets.notice(slot.config, lane, n.method, params, turn) : params;
    const before = this.notices.get(key);
    if (!before && !(seen instanceof Promise)) {
      if (seen) send(seen);
      return;
    }
    const after = (before ?? Promise.resolve())
      .then(() => seen)
      .then((s) => {
        if (s) send(s);
      })
      .catch(() => this.d.log.warn({ event: 'notification_dropped', lane }, 'a notification could not be checked for secrets: dropped'))
      .finally(() => {
        if (this.notices.get(key) === after) this.notices.delete(key);
      });
    this.notices.set(key, after);
  }

  /** `holder`: the session the request belongs to, when known (a request about one of its tasks). */
  async request(server: string, scope: ChildScope, r: RpcRequest, holder?: string): Promise<Params> {
    const route = routeServerRequest(scope, r.method);
    if (route.kind === 'answer') return {};
    if (route.kind === 'relay') {
      // A child that serves one lane: its request goes to that lane's client, and the answer back.
      const to = { lane: route.lane, server, ...(holder ? { holder } : {}) };
      const slot = this.d.slot(server);
      // What the upstream asks (a sampling prompt, an elicitation's message) is its text to the lane:
      // it crosses the gate as an answer does; refused, the child gets the refusal as its error.
      const asked = r.params ?? {};
      const params =
        slot && this.d.secrets ? await this.d.secrets.answer(slot.config, route.lane, r.method, asked, turn, 'request') : asked;
      const answer = await this.d.out.request(LINK.clientRequest, { ...to, method: r.method, params }, 300_000);
      // A lane's answer can be large (up to gateway.maxBodyBytes): read a step at a time.
      if (slot) await this.d.secrets?.arguments(slot.config, route.lane, r.method, answer, turn);
      return answer;
    }
    const slot = this.d.slot(server);
    if (route.kind === 'hazard' && slot) {
      this.hazard(slot, 'unroutable_server_request', r.method);
      throw new RpcFailure({ code: ERR.methodNotFound, message: 'refused: this shared process serves several lanes' });
    }
    this.d.log.warn({ event: 'server_request_refused', server, method: escapeUntrusted(r.method) }, 'server-initiated request not relayed');
    throw new RpcFailure({ code: ERR.methodNotFound, message: `lanegate does not relay ${r.method}` });
  }

  /** A frame a shared child sent that cannot be routed to one lane, or a tripwire answer: record, recycle, retreat. */
  hazard(slot: ServerSlot, code: 'unroutable_server_request' | 'unattributable_notification' | 'tripwire', detail: string): void {
    const server = slot.config.name;
    this.d.log.warn(
      { event: 'hazard_observed', server, code, detail: escapeUntrusted(detail) },
      `hazard on shared "${server}": ${code}; retreating to dedicated`,
    );
    this.d.out.notify(LINK.hazard, { server, code });
    const wasShared = slot.placement === 'shared';
    // Recycled at once (a child that misbehaved serves no more), so calls still on it fail: told why.
    void slot
      .retreat(`the shared process of "${server}" was stopped after a ${code} hazard; call again: it runs on a process of this lane's own`)
      .then(() => {
        this.d.onRetreated(server);
        if (wasShared) this.d.out.notify(LINK.placed, { server, change: 'retreated', at: Date.now() });
        this.d.out.notify('notifications/tools/list_changed', { _meta: { [META.server]: server, [META.lanes]: 'all' } });
      });
  }
}
