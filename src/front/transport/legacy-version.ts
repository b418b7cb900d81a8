import type { Exchange } from './exchange.js';

/** The handshake-era revisions a legacy session may negotiate, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

export const SESSION_HEADER = 'mcp-session-id';

/** The revision an initialize gets: the one it asked for if spoken here, else the newest. Pure. */
export const negotiate = (requested: unknown): string =>
  typeof requested === 'string' && LEGACY_VERSIONS.includes(requested) ? requested : (LEGACY_VERSIONS[0] as string);

/**
 * A handshake-era request after initialize names its revision in MCP-Protocol-Version; one this
 * gateway does not speak is a 400 (an absent header means the oldest, as the revision says).
 */
export const legacyVersionProblem = (c: Exchange): string | undefined => {
  const v = c.req.header('mcp-protocol-version');
  return v === undefined || LEGACY_VERSIONS.includes(v)
    ? undefined
    : `Bad Request: unsupported MCP-Protocol-Version (supported: ${LEGACY_VERSIONS.join(', ')})`;
};
