import type { Policy } from '../../policy/model.js';
import { remedyForAbsence } from '../../link/absence.js';
import { escapeUntrusted } from '../../log/escape.js';
import type { Absence } from '../../link/protocol.js';
import { searchCatalog } from './catalog-search.js';

/** Names the gateway itself serves in every lane's catalog. The prefix "lanegate" is reserved. */
export const STATUS_TOOL = 'lanegate_status';
export const SEARCH_TOOL = 'lanegate_search';
export const CALL_TOOL = 'lanegate_call';

export const statusTool = {
  name: STATUS_TOOL,
  title: 'What this lane should have, and what is missing',
  description:
    'Lists the MCP servers this lane is configured to use, which are serving now, and for each missing one why and the command an operator runs to fix it. Call it when a tool you expected is not listed or fails.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

export const searchTools = [
  {
    name: SEARCH_TOOL,
    title: "Search this lane's tools",
    description:
      'Searches the tools available to this lane by name, title, description and parameter names. Returns the best matches with a one-line description and the input schema to call them with lanegate_call.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you want to do, in a few words' },
        limit: { type: 'integer', minimum: 1, maximum: 25 },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    title: 'Call a tool of this lane by name',
    description: "Calls one of this lane's tools (as found with lanegate_search) with its arguments.",
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', description: 'The tool name, e.g. docs_search' }, arguments: { type: 'object' } },
      required: ['name'],
    },
  },
];

const text = (value: unknown, isError = false): Record<string, unknown> => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(typeof value === 'object' ? { structuredContent: value } : {}),
  ...(isError ? { isError: true } : {}),
});

/** lanegate_status for one lane: the loadout the policy promises vs what serves now. Pure. */
export const laneStatus = (
  policy: Policy,
  lane: string,
  tools: Record<string, unknown>[],
  absent: Absence[],
  drift: Record<string, string> = {},
  escalated: Record<string, { request: string; at: number }> = {},
): Record<string, unknown> => {
  const loadout = policy.lanes[lane]?.servers ?? [];
  const servers = loadout.map((name) => {
    const s = policy.servers[name];
    const gone = absent.find((a) => a.server === name);
    const count = tools.filter((t) => String(t.name).startsWith(`${s?.prefix ?? '?'}_`)).length;
    if (!s?.enabled)
      return { server: name, state: 'disabled', reason: 'disabled in the policy', remedy: `set servers.${name}.enabled: true` };
    if (gone)
      return {
        server: name,
        prefix: s.prefix,
        state: 'missing',
        reason: escapeUntrusted(gone.reason, 600),
        remedy: remedyForAbsence(name, gone),
      };
    const d = drift[name];
    const e = escalated[name];
    return {
      server: name,
      prefix: s.prefix,
      state: 'serving',
      tools: count,
      ...(e
        ? {
            placement: `served dedicated for this lane since it called ${e.request}, which the demonstration did not cover; widen the probe (servers.${name}.probe) to share it`,
          }
        : {}),
      ...(d ? { drift: d, remedy: remedyForAbsence(name, { code: 'drift' }) } : {}),
    };
  });
  const missing = servers.filter((s) => s.state !== 'serving').length;
  return {
    lane,
    summary:
      missing === 0
        ? `all ${servers.length} configured servers are serving`
        : `${missing} of ${servers.length} configured servers are missing`,
    servers,
  };
};

export const searchResult = (tools: Record<string, unknown>[], query: string, limit: number): Record<string, unknown> =>
  text({ query, hits: searchCatalog(tools, query, limit).map(({ score: _s, ...h }) => h) });

export const toolText = text;
