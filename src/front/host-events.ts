import { dispatchHostNote, type HostNoteHandlers, LINK, META } from '../link/protocol.js';
import type { ListMethod } from '../link/lists.js';
import type { GuardReport } from '../link/reports.js';
import { ERR, RpcFailure, type RpcNotification } from '../rpc/jsonrpc.js';
import { lanesOfHost, parseHostKey } from '../routing/route.js';
import type { FrontParts } from './front-parts.js';
import type { HostEvents } from './hosts/hosts.js';
import { lanesAffected } from './mcp/catalog.js';
import { type ClientRelayDeps, relayToClient } from './mcp/client-tasks.js';
import type { GuardWriter } from './operator/guard-writer.js';
import { recordEscalation, recordGuardReport, recordHazard } from './operator/record-events.js';

const LIST_OF: Record<string, ListMethod[]> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

/** What the host events touch of the running gateway. */
export type HostEventParts = Pick<
  FrontParts,
  | 'policy'
  | 'log'
  | 'guard'
  | 'metrics'
  | 'catalog'
  | 'sessions'
  | 'calls'
  | 'evidence'
  | 'live'
  | 'escalations'
  | 'inventory'
  | 'upstreamHealth'
>;

/** A list of a lane changed: its catalog is read again, and its sessions hear it. */
const listChanged = (gw: HostEventParts, lanes: readonly string[], method = 'notifications/tools/list_changed'): void => {
  for (const lane of lanes) gw.sessions.notifyLane(lane, { jsonrpc: '2.0', method });
};

const onGuardReport = (gw: HostEventParts, writer: GuardWriter, key: string, r: GuardReport): void => {
  // Recorded either way (review and inspect show it); a judgment of one lane's own child is news to that lane only.
  recordGuardReport(gw.guard, r, writer);
  gw.metrics.guard.inc({ server: r.server, status: r.status });
  const lanes = r.lane !== undefined ? [r.lane] : lanesAffected(gw.policy, key, r.server, 'all');
  gw.catalog.invalidate(lanes);
  listChanged(gw, lanes);
};

/** One handler per link notification (src/link/protocol.ts), each given typed params. */
const hostNotes = (gw: HostEventParts, writer: GuardWriter): HostNoteHandlers => ({
  [LINK.guard]: (key, r) => onGuardReport(gw, writer, key, r),
  [LINK.notify]: (_key, p) => {
    if (!p.lane || !p.method) return;
    const msg = { jsonrpc: '2.0', method: p.method, params: p.params ?? {} };
    // To the call it belongs to; a log line with no call open goes to the lane's GET streams.
    if (!gw.calls.streams.deliver(p.lane, p.token, msg) && p.token === undefined) gw.sessions.notifyLane(p.lane, msg);
  },
  [LINK.laneEvent]: (_key, p) => {
    if (!p.lane || !p.method || !Array.isArray(p.holders)) return;
    gw.sessions.deliverToHolders(p.lane, p.holders.map(String), { jsonrpc: '2.0', method: p.method, params: p.params ?? {} });
  },
  [LINK.escalated]: (key, p) => recordEscalation(gw, key, p),
  [LINK.placed]: (key, p) => gw.live.record(key, p),
  [LINK.hazard]: (key, p) => {
    const server = String(p.server ?? '');
    const code = String(p.code ?? '');
    if (recordHazard(gw.evidence, server, code, key, gw.log)) gw.metrics.hazards.inc({ server, code });
    // The host has retreated already; its recorded configuration follows, so status says what runs.
    void gw.live.apply('hazard');
  },
  [LINK.inventory]: (_key, p) => {
    if (p.server && p.cleared === true) delete gw.inventory[p.server];
    else if (p.server && p.line) {
      gw.inventory[p.server] = { line: p.line, withheld: p.withheld === true, at: new Date().toISOString() };
      gw.metrics.drift.inc({ server: p.server });
    }
  },
  [LINK.secret]: (_key, p) => {
    for (const rule of p.rules ?? []) gw.metrics.secrets.inc({ server: p.server, direction: p.direction, rule, action: p.action });
  },
  [LINK.upstream]: (_key, p) => {
    gw.upstreamHealth.note(p);
    if (p.kind === 'started' && p.server && p.version) gw.evidence.noteVersion(p.server, p.version);
    if (p.kind === 'crashed' && p.server) gw.metrics.restarts.inc({ kind: 'upstream', server: p.server });
  },
});

/** A host relays an upstream's request to a lane's client: on the lane's call stream (legacy era) or its GET stream. */
const onHostRequest = (
  gw: HostEventParts,
  relay: ClientRelayDeps,
  key: string,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> => {
  const lane = String(params.lane ?? '');
  const hostLane = parseHostKey(key).lane;
  if (method !== LINK.clientRequest || !gw.policy.lanes[lane] || (hostLane !== undefined && hostLane !== lane)) {
    return Promise.reject(new RpcFailure({ code: ERR.invalidParams, message: 'refused' }));
  }
  const inner = String(params.method ?? '');
  // Client-side tasks are pinned to a session per host and server (client-tasks.ts).
  const origin = `${key}\u0000${String(params.server ?? '')}`;
  const holder = typeof params.holder === 'string' ? params.holder : undefined;
  return relayToClient(relay, origin, lane, inner, (params.params ?? {}) as Record<string, unknown>, holder);
};

/**
 * What the front does with what its hosts send on their own: link notifications (guard reports,
 * a call's notifications, hazards, drift, upstream health), an upstream's list change, a request
 * for a lane's client, and a host's exit.
 */
export const hostEvents = (gw: HostEventParts, writer: GuardWriter, relay: ClientRelayDeps): HostEvents => {
  const notes = hostNotes(gw, writer);
  return {
    onNotification: (key: string, n: RpcNotification): void => {
      if (dispatchHostNote(key, n.method, n.params, notes)) return;
      const methods = LIST_OF[n.method];
      if (!methods) return;
      const meta = (n.params?._meta ?? {}) as { [META.server]?: string; [META.lanes]?: string[] | 'all' };
      const lanes = lanesAffected(gw.policy, key, meta[META.server] ?? '', meta[META.lanes] ?? 'all');
      for (const m of methods) gw.catalog.invalidate(lanes, m);
      listChanged(gw, lanes, n.method);
    },
    onHostExit: (key: string): void => {
      gw.metrics.restarts.inc({ kind: 'host', server: key });
      gw.escalations.forgetHost(key);
      gw.live.forgetHost(key);
      const lanes = lanesOfHost(gw.policy, key);
      gw.catalog.invalidate(lanes);
      listChanged(gw, lanes);
    },
    onRequest: (key, method, params) => onHostRequest(gw, relay, key, method, params),
  };
};
