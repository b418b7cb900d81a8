import { type Agent, request } from 'node:http';

/** One raw HTTP request with node:http (a keep-alive agent, no fetch overhead): status and body text. */
export const send = (
  url: URL,
  body: string,
  headers: Record<string, string>,
  agent: Agent,
  method = 'POST',
): Promise<{ status: number; text: string }> =>
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
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(body);
  });

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
