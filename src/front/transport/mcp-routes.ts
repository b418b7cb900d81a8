import { ERR } from '../../rpc/jsonrpc.js';
import type { Exchange, Replied } from './exchange.js';
import { handleDelete, handleGet, handlePost, type McpHttpDeps } from './mcp-http.js';

/** The MCP endpoint for lanes, at /mcp: POST (both eras), GET (streams), DELETE (a session). */
export const mcpRoute = (c: Exchange, d: McpHttpDeps): Promise<Replied> | Replied => {
  switch (c.incoming.method) {
    case 'POST':
      return handlePost(c, d);
    case 'GET':
      return handleGet(c, d);
    case 'DELETE':
      return handleDelete(c, d);
    default:
      return c.json(
        { jsonrpc: '2.0', id: null, error: { code: ERR.methodNotAllowed, message: 'Method not allowed: /mcp takes POST, GET and DELETE' } },
        405,
        { Allow: 'POST, GET, DELETE' },
      );
  }
};
