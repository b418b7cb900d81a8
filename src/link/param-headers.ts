/**
 * 2026-07-28 header rules that need a tool's schema: parameters declared with `x-mcp-header` must
 * be mirrored in Mcp-Param-<Name> headers. The front passes the request's Mcp-Param headers in the
 * caller block; the host checks them against the surface it already holds (no listing). Pure.
 */
import { ERR } from '../rpc/jsonrpc.js';

export interface Rejection {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

/** Decodes an Mcp-Name / Mcp-Param value: plain, or the `=?base64?...?=` sentinel form. */
export const decodeHeaderValue = (raw: string): string | undefined => {
  const v = raw.trim();
  const m = /^=\?base64\?([^?]*)\?=$/i.exec(v);
  if (!m) return v;
  const b = m[1] ?? '';
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b) || b.length % 4 !== 0) return undefined;
  try {
    return Buffer.from(b, 'base64').toString('utf8');
  } catch {
    return undefined;
  }
};

export const mismatch = (header: string, detail: string): Rejection => ({
  status: 400,
  code: ERR.headerMismatch,
  message: `Bad Request: the request headers and body disagree: ${detail}`,
  data: { mismatch: { header } },
});

/** Tool parameters declared with `x-mcp-header` must be mirrored in Mcp-Param-<Name> headers. */
export const checkParamHeaders = (
  inputSchema: unknown,
  args: Record<string, unknown>,
  header: (name: string) => string | undefined,
): Rejection | undefined => {
  const props = ((inputSchema as { properties?: Record<string, { 'x-mcp-header'?: unknown; type?: unknown }> } | undefined)?.properties ??
    {}) as Record<string, { 'x-mcp-header'?: unknown; type?: unknown }>;
  for (const [prop, schema] of Object.entries(props)) {
    const h = schema['x-mcp-header'];
    if (typeof h !== 'string') continue;
    const body = args[prop];
    if (body === undefined || body === null || typeof body === 'object') continue;
    const key = `Mcp-Param-${h}`;
    const raw = header(key.toLowerCase());
    if (raw === undefined) return mismatch(key, `the body carries ${prop}=${JSON.stringify(body)} but the ${key} header is absent`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return mismatch(key, `the ${key} header carries an invalid Base64 sentinel value`);
    const same = typeof body === 'number' ? Number(decoded) === body : decoded === String(body);
    if (!same)
      return mismatch(key, `the ${key} header decodes to ${JSON.stringify(decoded)} but the body carries ${prop}=${JSON.stringify(body)}`);
  }
  return undefined;
};

/** The Mcp-Param-* headers of a request, names lower-cased. */
export const paramHeadersOf = (headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (typeof v === 'string' && k.toLowerCase().startsWith('mcp-param-')) out[k.toLowerCase()] = v;
  return out;
};
