import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import type { LinePeer } from '../rpc/peer.js';
import {
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  CLIENT_TASKS,
  type Era,
  MODERN_META,
  MODERN_REVISION,
  UPSTREAM_PROTOCOL_VERSION,
  type UpstreamInit,
} from './conn.js';

type Params = Record<string, unknown>;

/** 2026-07-28: no handshake, a `server/discover` (every request carries the envelope). */
export const discover = async (peer: LinePeer, envelope: (p: Params | undefined) => Params, timeoutMs: number): Promise<UpstreamInit> => {
  const r = await peer.request('server/discover', envelope(undefined), timeoutMs);
  const versions = Array.isArray(r.supportedVersions) ? (r.supportedVersions as string[]) : [];
  if (!versions.includes(MODERN_REVISION))
    throw new Error(`upstream does not serve ${MODERN_REVISION} (it offers ${versions.join(', ') || 'nothing'})`);
  const info = (r.serverInfo ?? (r._meta as Params | undefined)?.[MODERN_META.serverInfo] ?? {}) as Params;
  return {
    protocolVersion: MODERN_REVISION,
    capabilities: (r.capabilities as Params) ?? {},
    serverInfo: info,
    ...(typeof r.instructions === 'string' ? { instructions: r.instructions } : {}),
  };
};

/** The handshake era: `initialize`, then `notifications/initialized`. */
export const initialize = async (
  peer: LinePeer,
  clientInfo: { name: string; version: string },
  timeoutMs: number,
  capabilities: Record<string, unknown> = { ...CLIENT_CAPABILITIES, tasks: CLIENT_TASKS },
): Promise<UpstreamInit> => {
  const r = await peer.request('initialize', { protocolVersion: UPSTREAM_PROTOCOL_VERSION, capabilities, clientInfo }, timeoutMs);
  peer.notify('notifications/initialized');
  return {
    protocolVersion: String(r.protocolVersion ?? ''),
    capabilities: (r.capabilities as Params) ?? {},
    serverInfo: (r.serverInfo as Params) ?? {},
    ...(typeof r.instructions === 'string' ? { instructions: r.instructions } : {}),
  };
};

/** The list changes a server advertises, as a `subscriptions/listen` filter (undefined if none). */
export const listChangedFilter = (caps: Params): Record<string, true> | undefined => {
  const on = (k: string): boolean => (caps[k] as { listChanged?: unknown } | undefined)?.listChanged === true;
  const f: Record<string, true> = {};
  if (on('tools')) f.toolsListChanged = true;
  if (on('prompts')) f.promptsListChanged = true;
  if (on('resources')) f.resourcesListChanged = true;
  return Object.keys(f).length > 0 ? f : undefined;
};

type Envelope = (p: Params | undefined) => Params;

/**
 * 2026-07-28: no handshake; every request carries the envelope. A caller-provided
 * clientCapabilities (the lane's own) wins over the gateway's default.
 */
export const modernEnvelope =
  (clientInfo: { name: string; version: string }, capabilities: Params | undefined): Envelope =>
  (params) => {
    const meta = (params?._meta as Params | undefined) ?? {};
    return {
      ...(params ?? {}),
      _meta: {
        [MODERN_META.protocolVersion]: MODERN_REVISION,
        [MODERN_META.clientInfo]: clientInfo,
        [MODERN_META.clientCapabilities]: capabilities ?? CLIENT_CAPABILITIES,
        ...meta,
      },
    };
  };

/** The era a link speaks, and what its server said; or why it did not start (in the era last tried). */
export type Handshaken = { ok: true; init: UpstreamInit; modern: boolean } | { ok: false; error: unknown; modern: boolean };

export interface HandshakeOptions {
  initTimeoutMs: number;
  clientInfo?: { name: string; version: string };
  era?: Era;
  /** Try the other era when the upstream refuses the first handshake (`upstreamEra: auto`). */
  fallback?: boolean;
  capabilities?: Params;
}

/**
 * The handshake in the era asked for, then (`auto`) in the other one if the upstream ANSWERED
 * with a refusal; one that hung up or never answered does not get a second try. A 2026-07-28
 * link then holds a list-change subscription open for its life.
 */
export const handshake = async (peer: LinePeer, envelope: Envelope, opts: HandshakeOptions): Promise<Handshaken> => {
  let modern = opts.era === 'modern';
  const clientInfo = opts.clientInfo ?? CLIENT_INFO;
  const once = (m: boolean): Promise<UpstreamInit> =>
    m ? discover(peer, envelope, opts.initTimeoutMs) : initialize(peer, clientInfo, opts.initTimeoutMs, opts.capabilities);
  try {
    let init: UpstreamInit;
    try {
      init = await once(modern);
    } catch (e) {
      const silent = peer.isClosed || (e instanceof RpcFailure && e.rpc.code === ERR.timeout);
      if (!opts.fallback || silent) throw e;
      modern = !modern;
      init = await once(modern);
    }
    if (modern) listenForChanges(peer, envelope, init);
    return { ok: true, init, modern };
  } catch (error) {
    return { ok: false, error, modern };
  }
};

/**
 * In 2026-07-28 a server sends list changes only on a subscription: hold one open for the life of
 * the link (its answer comes only when the server closes it).
 */
const listenForChanges = (peer: LinePeer, envelope: Envelope, init: UpstreamInit): void => {
  const filter = listChangedFilter(init.capabilities);
  if (filter) void peer.request('subscriptions/listen', envelope({ notifications: filter }), 0).catch(() => undefined);
};
