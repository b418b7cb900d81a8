import type { Surface } from '../guard/scanner.js';
import type { UpstreamConn } from '../upstream/conn.js';
import type { ListMethod } from '../link/lists.js';

type Params = Record<string, unknown>;
const MAX_PAGES = 100;

/** Every page of one list method. */
export const fetchAll = async (conn: UpstreamConn, method: ListMethod, field: string, timeoutMs: number): Promise<Params[]> => {
  const all: Params[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const r = await conn.request(method, cursor ? { cursor } : undefined, timeoutMs);
    const items = r[field];
    if (Array.isArray(items)) all.push(...(items as Params[]));
    cursor = typeof r.nextCursor === 'string' && r.nextCursor.length > 0 ? r.nextCursor : undefined;
    if (!cursor) break;
  }
  return all;
};

/** An upstream's whole model-visible surface (what the guard scans before any lane sees it). */
export const fetchSurface = async (conn: UpstreamConn, timeoutMs: number): Promise<Surface> => {
  const caps = conn.init.capabilities;
  const get = (m: ListMethod, field: string, on: boolean): Promise<Params[]> =>
    on ? fetchAll(conn, m, field, timeoutMs) : Promise.resolve([]);
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    get('tools/list', 'tools', caps.tools !== undefined),
    get('prompts/list', 'prompts', caps.prompts !== undefined),
    get('resources/list', 'resources', caps.resources !== undefined),
    get('resources/templates/list', 'resourceTemplates', caps.resources !== undefined).catch(() => []),
  ]);
  return { tools, prompts, resources, resourceTemplates, ...(conn.init.instructions ? { instructions: conn.init.instructions } : {}) };
};
