import type { LinePeer } from '../rpc/peer.js';
import { CLIENT_CAPABILITIES, CLIENT_TASKS, MODERN_META, MODERN_REVISION, UPSTREAM_PROTOCOL_VERSION, type UpstreamInit } from './conn.js';

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
