import { type Agent, type IncomingHttpHeaders, request } from 'node:http';

/** One raw HTTP request with node:http (a keep-alive agent, no fetch overhead): status, headers and the body's bytes (status 0: no answer). */
export const sendBytes = (
  url: URL,
  body: string | Buffer,
  headers: Record<string, string>,
  agent: Agent,
  method = 'POST',
): Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }> =>
  new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        agent,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      },
    );
    req.on('error', () => resolve({ status: 0, headers: {}, bytes: Buffer.alloc(0) }));
    req.end(body);
  });

/** sendBytes with the body as text. */
export const send = async (
  url: URL,
  body: string,
  headers: Record<string, string>,
  agent: Agent,
  method = 'POST',
): Promise<{ status: number; text: string }> => {
  const r = await sendBytes(url, body, headers, agent, method);
  return { status: r.status, text: r.bytes.toString('utf8') };
};

/** The 2026-07-28 per-request envelope a raw client sends in `_meta`. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Headers and body of a 2026-07-28 tools/call by a lane token. */
export const modernCall = (
  token: string,
  id: number,
  name: string,
  args: Record<string, unknown>,
): { headers: Record<string, string>; body: string } => ({
  headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: MODERN_META } }),
});
