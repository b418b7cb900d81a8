import { Hono } from 'hono';
import { handleDelete, handleGet, handlePost, type McpHttpDeps } from './mcp-http.js';

/** The MCP endpoint for lanes, mounted at /mcp: POST (both eras), GET (streams), DELETE (a session). */
export const mcpRoutes = (d: () => McpHttpDeps): Hono => {
  const app = new Hono();
  app.post('/', (c) => handlePost(c, d()));
  app.get('/', (c) => handleGet(c, d()));
  app.delete('/', (c) => handleDelete(c, d()));
  return app;
};
