import { type Absence, type HostOut, META } from '../link/protocol.js';
import { checkParamHeaders } from '../link/param-headers.js';
import { LanegateError } from '../errors.js';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import type { Surface } from '../guard/scanner.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import type { Log } from '../log/lite.js';
import { inScope } from '../shareability/scope.js';
import { escalateLane, listedIn } from './lane-moves.js';
import type { ResourceRelay } from './resource-relay.js';
import type { ServerSlot } from './slot.js';

type Params = Record<string, unknown>;
type SurfaceTool = Record<string, unknown>;

export interface GateDeps {
  vettedSurface: (slot: ServerSlot, lane: string, era: Era) => Promise<Surface>;
  unavailable: (server: string, lane: string) => Omit<Absence, 'server'> | undefined;
  resources: ResourceRelay;
  log: Log;
  notify: HostOut['notify'];
}

export interface CallOf {
  lane: string;
  era: Era;
  method: string;
  headers?: Record<string, string>;
}

/** A surface's tools by name, built once per surface (a call's Mcp-Param check is then one lookup). */
const toolIndex = new WeakMap<Surface, Map<string, SurfaceTool>>();
const toolNamed = (surface: Surface, name: unknown): SurfaceTool | undefined => {
  let index = toolIndex.get(surface);
  if (!index) {
    index = new Map((surface.tools ?? []).map((t) => [String(t.name), t]));
    toolIndex.set(surface, index);
  }
  return typeof name === 'string' ? index.get(name) : undefined;
};

/**
 * Everything a call must pass before its upstream sees it, in order: a shared child runs only
 * what was demonstrated (anything else moves this lane to its own child first, and a name the
 * server does not list moves no one), the surface is vetted, the server is not withheld, the tool
 * or prompt is one the server lists (so the guard vetted it and the lane was shown it), and a
 * 2026-07-28 call's Mcp-Param headers agree with the tool's schema. Returns the connection.
 */
export const admitCall = async (d: GateDeps, slot: ServerSlot, call: CallOf, params: Params): Promise<UpstreamConn> => {
  const { lane, era, method } = call;
  if (slot.sharedFor(lane)) {
    const v = inScope(slot.scope, method, params);
    if (!v.inside) {
      const surface = await d.vettedSurface(slot, lane, era).catch(() => undefined);
      if (surface && !listedIn(surface, method, params))
        throw new RpcFailure({ code: ERR.notInCatalog, message: "not in this lane's catalog" });
      await escalateLane(slot, lane, v.request, { resources: d.resources, log: d.log, notify: d.notify });
    }
  }
  let conn: UpstreamConn;
  let surface: Surface;
  try {
    conn = await slot.conn(lane, era);
    // Nothing is called on an upstream whose surface was not vetted.
    surface = await d.vettedSurface(slot, lane, era);
  } catch (e) {
    throw new RpcFailure({ code: ERR.unavailable, message: e instanceof LanegateError ? e.detail : 'upstream unavailable' });
  }
  const why = d.unavailable(slot.config.name, lane);
  if (why)
    throw new RpcFailure({
      code: ERR.unavailable,
      message: `upstream "${slot.config.name}" ${why.reason}`,
      data: { [META.absent]: why.code },
    });
  // What the server does not list was never vetted by the guard nor shown to the lane: nobody's to call.
  const tool = method === 'tools/call' ? toolNamed(surface, params.name) : undefined;
  if (method === 'tools/call' ? !tool : !listedIn(surface, method, params))
    throw new RpcFailure({ code: ERR.notInCatalog, message: "not in this lane's catalog" });
  if (call.headers && tool) {
    const headers = call.headers;
    const bad = tool && checkParamHeaders(tool.inputSchema, (params.arguments ?? {}) as Params, (h) => headers[h]);
    if (bad) throw new RpcFailure({ code: bad.code, message: bad.message, data: bad.data });
  }
  return conn;
};
