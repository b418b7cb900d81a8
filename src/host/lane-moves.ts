import { type HostOut, LINK } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import { escapeUntrusted } from '../log/escape.js';
import type { Era } from '../upstream/conn.js';
import type { Surface } from '../guard/scanner.js';
import type { ResourceRelay } from './resource-relay.js';
import type { ServerSlot } from './slot.js';

/**
 * Evidence scope, the host's side: the lane's first request outside the demonstration moves it to
 * a dedicated child of its own for this server until the host restarts; its resource
 * subscriptions move with it (the lane's own child is started at once to hold them). An event,
 * not a hazard: logged, and reported to the front (`lanegate/escalated`).
 */
export const escalateLane = async (
  slot: ServerSlot,
  lane: string,
  request: string,
  deps: { resources: ResourceRelay; log: Log; notify: HostOut['notify'] },
): Promise<void> => {
  const server = slot.config.name;
  if (!slot.escalate(lane)) return;
  // The request names a lane-chosen tool or URI: it leaves here escaped and short, for every reader
  // (logs, lanegate_status, review, the API, the dashboard).
  const shown = escapeUntrusted(request, 200);
  deps.log.info(
    { event: 'lane_escalated', server, lane, request: shown },
    `lane "${lane}" now runs "${server}" dedicated: it called ${shown}, which the demonstration did not cover`,
  );
  deps.notify(LINK.escalated, { server, lane, request: shown, at: Date.now() });
  const moved = await deps.resources.escalate(server, lane, (era: Era) => slot.sharedConn(era));
  for (const c of moved) void slot.conn(c.lane, c.era).catch(() => undefined);
};

export interface ProcessRow {
  server: string;
  placement: 'shared' | 'dedicated';
  lane?: string;
  /** For a shared child: the lanes on it now. */
  lanes?: string[];
  era: Era;
  pid: number;
}

/** Every running child of these slots, and the lanes on each shared one. */
export const processesOf = (slots: Iterable<ServerSlot>): ProcessRow[] =>
  [...slots].flatMap((s) =>
    s.pids().map((p) => ({
      server: s.config.name,
      placement: p.lane === undefined ? ('shared' as const) : ('dedicated' as const),
      ...(p.lane ? { lane: p.lane } : { lanes: s.sharedLanes() }),
      era: p.era,
      pid: p.pid,
    })),
  );

/**
 * Whether a tool call, prompt get or completion names an item the server lists: a completion's
 * prompt by name, its resource by the URI or URI template listed (attack round 10: completions
 * for prompts the server never listed reached it). Other methods are not judged here: a resource
 * URI to read may come from a template. Pure.
 */
export const listedIn = (surface: Surface, method: string, params: Record<string, unknown>): boolean => {
  const name = typeof params.name === 'string' ? params.name : undefined;
  if (method === 'tools/call') return (surface.tools ?? []).some((t) => t.name === name);
  if (method === 'prompts/get') return (surface.prompts ?? []).some((p) => p.name === name);
  if (method === 'completion/complete') {
    const ref = (params.ref ?? {}) as Record<string, unknown>;
    if (ref.type === 'ref/prompt') return (surface.prompts ?? []).some((p) => p.name === ref.name);
    if (ref.type === 'ref/resource')
      return (
        (surface.resourceTemplates ?? []).some((t) => t.uriTemplate === ref.uri) || (surface.resources ?? []).some((r) => r.uri === ref.uri)
      );
    return false;
  }
  return true;
};
