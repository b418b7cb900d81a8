import { isListMethod } from '../../link/lists.js';
import { MODERN_META } from '../../upstream/conn.js';
import type { RawResult } from '../../rpc/raw.js';
import type { WireParts } from '../../rpc/parts.js';
import { dropFirst, dropLast, trimParts } from '../../rpc/parts-text.js';

/** Results of the stateless era carry resultType, and cacheable ones ttlMs + cacheScope. */
export const modernResult = (
  method: string,
  result: Record<string, unknown>,
  serverInfo: Record<string, unknown>,
): Record<string, unknown> => {
  const out: Record<string, unknown> = { resultType: 'complete', ...result };
  if (isListMethod(method) || method === 'server/discover' || method === 'resources/read') {
    out.ttlMs = typeof result.ttlMs === 'number' ? result.ttlMs : 0;
    out.cacheScope = 'private';
  }
  const meta = (out._meta as Record<string, unknown> | undefined) ?? {};
  out._meta = { ...meta, [MODERN_META.serverInfo]: serverInfo };
  return out;
};

/** Keys a spliced result must not already hold at any depth (they would be written twice). */
export const ADDED_KEYS = ['resultType', 'ttlMs', 'cacheScope', '_meta'];

/**
 * The same 2026-07-28 result written around the host's text without parsing it: `resultType`
 * first, the result's own members as they arrived, then what the front adds. Undefined when the
 * text may already hold a key the front adds (anywhere: a nested `_meta` counts too), or is not an
 * object: then the caller parses and uses modernResult. A large result then costs the front
 * neither a parse and a serialisation nor a copy (the text is returned as parts).
 */
export const modernResultText = (method: string, raw: RawResult, serverInfo: Record<string, unknown>): WireParts | undefined => {
  if (ADDED_KEYS.some((k) => raw.mayHave(k))) return undefined;
  const t = raw.parts;
  const first = t[0] ?? '';
  const last = t[t.length - 1] ?? '';
  // A link's long line ends in text (line-reader.ts); bytes at an end: parsed instead (never so).
  if (typeof first !== 'string' || typeof last !== 'string') return undefined;
  if (first.charCodeAt(0) !== 123 || last.charCodeAt(last.length - 1) !== 125) return undefined;
  // The text between the braces, trimmed, as parts: a large result's are never joined.
  const inner = trimParts(dropLast(dropFirst(t, 1), 1));
  const cache =
    isListMethod(method) || method === 'server/discover' || method === 'resources/read' ? ',"ttlMs":0,"cacheScope":"private"' : '';
  // As parts: the result's text is written as it is, never copied into one string with the rest.
  return [
    `{"resultType":"complete"${inner.length > 0 ? ',' : ''}`,
    ...inner,
    `${cache},"_meta":${JSON.stringify({ [MODERN_META.serverInfo]: serverInfo })}}`,
  ];
};
