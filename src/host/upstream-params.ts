import type { UpstreamConn } from '../upstream/conn.js';
import { CALLER_IDENTITY_EXT, CALLER_META } from '../link/config.js';

type Params = Record<string, unknown>;

/**
 * The params a call carries to its upstream, built from what the front sent. Pure.
 * - No `_meta` key of lanegate's namespace (`lanegate/…`) reaches a child: the front's caller
 *   block never does, except as `{ lane }` for a child that
 *   advertises the caller-identity extension.
 * - On a 2026-07-28 link the upstream sees the lane's OWN declared capabilities, so it asks only
 *   for what the lane can answer; on a handshake-era link MRTR fields mean nothing and are dropped.
 */
export const upstreamParams = (conn: Pick<UpstreamConn, 'init' | 'modern'>, lane: string, params: Params): Params => {
  const meta = { ...((params._meta as Params | undefined) ?? {}) };
  const caller = meta[CALLER_META] as { capabilities?: unknown } | undefined;
  // Nothing in lanegate's own namespace reaches an upstream from a lane, in either era: only the
  // caller block below, which lanegate writes itself.
  for (const k of Object.keys(meta)) if (k.startsWith('lanegate/')) delete meta[k];
  const caps = conn.init.capabilities as { experimental?: Params; extensions?: Params };
  if (caps.experimental?.[CALLER_IDENTITY_EXT] !== undefined || caps.extensions?.[CALLER_IDENTITY_EXT] !== undefined) {
    meta[CALLER_META] = { lane };
  }
  const out: Params = { ...params };
  if (conn.modern) {
    if (caller?.capabilities && typeof caller.capabilities === 'object')
      meta['io.modelcontextprotocol/clientCapabilities'] = caller.capabilities;
  } else {
    delete out.inputResponses;
    delete out.requestState;
  }
  if (Object.keys(meta).length > 0) out._meta = meta;
  else delete out._meta;
  return out;
};
