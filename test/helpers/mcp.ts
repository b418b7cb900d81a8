import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** A real SDK v2 client to the gateway with a lane token, in the requested era. */
export const connectClient = async (url: string, token: string, era: 'legacy' | 'modern'): Promise<Client> => {
  const client = new Client(
    { name: `test-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
};

/** A raw JSON-RPC POST, for checks the SDK would hide (status codes, headers). */
export const post = async (
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> | undefined }> => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json };
};

export const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A 2026-07-28 request: the envelope in _meta and the version header. */
export const modernPost = (
  url: string,
  token: string,
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  extraHeaders: Record<string, string> = {},
) =>
  post(
    url,
    { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...modernMeta, ...((params._meta as object) ?? {}) } } },
    {
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
      ...(typeof params.uri === 'string' ? { 'mcp-name': params.uri } : {}),
      ...extraHeaders,
    },
  );

export const textOf = (result: unknown): string => {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
};

/** Opens a handshake-era session with raw HTTP; returns the headers every later POST of it needs. */
export const legacySession = async (
  url: string,
  token: string,
  capabilities: Record<string, unknown> = {},
): Promise<Record<string, string>> => {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'test', version: '1' } },
    }),
  });
  return { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '' };
};

/** Opens a 2026-07-28 `subscriptions/listen` stream for the lane; abort `signal` to end it. */
export const listenRequest = (
  url: string,
  token: string,
  id: string | number,
  notifications: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Response> =>
  fetch(url, {
    ...(signal ? { signal } : {}),
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications, _meta: modernMeta } }),
  });
