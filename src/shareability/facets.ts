import { canonical } from '../guard/hash.js';

/** Free-form leaves collapse to a presence marker; booleans (flags) keep their value. Pure. */
export const PRESENT = '•';

export const shapeOf = (v: unknown, depth = 0): unknown => {
  if (depth > 10) return PRESENT;
  if (typeof v === 'boolean') return v;
  if (v === null || typeof v !== 'object') return PRESENT;
  if (Array.isArray(v)) return v.map((x) => shapeOf(x, depth + 1));
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shapeOf(x, depth + 1)]));
};

export interface HandshakeFacets {
  capabilities: string;
  protocolVersion: string;
  serverInfo: string;
  /** Tool names as a SET (enumeration order is not a promise). */
  tools: string;
  /** Annotation shapes as a MULTISET, never paired with tool names. */
  annotations: string;
}

/** The facets a pooled backend replays to every caller, canonicalised for comparison. Pure. */
export const facetsOf = (
  init: { protocolVersion: string; capabilities: unknown; serverInfo: unknown },
  tools: Record<string, unknown>[],
): HandshakeFacets => ({
  capabilities: canonical(shapeOf(init.capabilities)),
  protocolVersion: init.protocolVersion,
  serverInfo: canonical(shapeOf(init.serverInfo)),
  tools: canonical([...new Set(tools.map((t) => String(t.name ?? '')).filter((n) => n.length > 0))].sort()),
  annotations: canonical(
    tools
      .map((t) => t.annotations)
      .filter((a) => a !== null && typeof a === 'object')
      .map((a) => canonical(shapeOf(a)))
      .sort(),
  ),
});

/** Which facets differ between two callers' handshakes. Pure. */
export const divergentFacets = (a: HandshakeFacets, b: HandshakeFacets): string[] =>
  (Object.keys(a) as (keyof HandshakeFacets)[]).filter((k) => a[k] !== b[k]);

/**
 * What logging becomes on a shared child, as lanegate does it: `logging/setLevel` is answered by
 * the gateway per lane and never forwarded (no lane sets the level another sees), and a log line
 * names no call, so it reaches a lane only from a child that serves that lane alone.
 */
export const LOGGING_WHEN_SHARED =
  'logging: lanegate answers logging/setLevel per lane and never forwards it, so the server keeps its own level; its log lines reach a lane only from a child serving that lane alone (dropped on a shared child)';

/** Capabilities that degrade on a shared backend, by PRESENCE of the key ({} advertises one). */
export const degradationsOf = (capabilities: Record<string, unknown>): string[] => ('logging' in capabilities ? [LOGGING_WHEN_SHARED] : []);

/** A recorded degradation in today's words (records written before may carry older ones). */
export const describeDegradation = (recorded: string): string => (recorded.startsWith('logging') ? LOGGING_WHEN_SHARED : recorded);

export const declaresCallerIdentity = (capabilities: Record<string, unknown>, ext: string): boolean => {
  const c = capabilities as { experimental?: Record<string, unknown>; extensions?: Record<string, unknown> };
  return c.experimental?.[ext] !== undefined || c.extensions?.[ext] !== undefined;
};
