/**
 * The 2026-07-28 request rules the front enforces before dispatch (pure): the revision must be
 * one we serve, the standard Mcp-Method / Mcp-Name headers must agree with the body, and methods
 * the revision removed answer 404 + -32601. Errors use the spec's codes and HTTP statuses.
 */
export const MODERN_REVISIONS = ['2026-07-28'];
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_VERSION = -32022;

export interface Rejection {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

/** Methods the stateless revision removed (or never had): 404 with -32601. */
export const REMOVED_IN_MODERN = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
]);

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

const nameSource = (method: string, params: Record<string, unknown>): string | undefined => {
  if (method === 'tools/call' || method === 'prompts/get') return typeof params.name === 'string' ? params.name : undefined;
  if (method === 'resources/read') return typeof params.uri === 'string' ? params.uri : undefined;
  return undefined;
};

const mismatch = (header: string, detail: string): Rejection => ({
  status: 400,
  code: HEADER_MISMATCH,
  message: `Bad Request: the request headers and body disagree: ${detail}`,
  data: { mismatch: { header } },
});

export const checkRevision = (revision: string | undefined): Rejection | undefined =>
  revision === undefined || MODERN_REVISIONS.includes(revision)
    ? undefined
    : {
        status: 400,
        code: UNSUPPORTED_VERSION,
        message: `Unsupported protocol version: ${revision}`,
        data: { supported: MODERN_REVISIONS, requested: revision },
      };

export const checkStandardHeaders = (
  method: string,
  params: Record<string, unknown>,
  headers: { method?: string; name?: string },
): Rejection | undefined => {
  if (headers.method === undefined)
    return mismatch('Mcp-Method', `the body names method ${method} but the required Mcp-Method header is absent`);
  const bodyName = nameSource(method, params);
  if (bodyName === undefined) return undefined;
  if (headers.name === undefined) return mismatch('Mcp-Name', `the body carries "${bodyName}" but the required Mcp-Name header is absent`);
  const decoded = decodeHeaderValue(headers.name);
  if (decoded === undefined) return mismatch('Mcp-Name', 'the Mcp-Name header carries an invalid Base64 sentinel value');
  if (decoded !== bodyName) return mismatch('Mcp-Name', `the body carries "${bodyName}" but the Mcp-Name header names "${decoded}"`);
  return undefined;
};

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
