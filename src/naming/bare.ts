import { addPrefix, targetOf, withTarget } from './anatomy.js';

/**
 * `naming: bare` for a lane whose loadout is exactly one server: the lane sees that server's own
 * names, and the front adds the prefix on the way in and strips it on the way out, so routing,
 * the ledger and the logs still see one consistent prefixed world. Pure.
 */
const strip = (s: unknown, head: string): unknown => (typeof s === 'string' && s.startsWith(head) ? s.slice(head.length) : s);

export const bareResult = (method: string, result: Record<string, unknown>, prefix: string): Record<string, unknown> => {
  const n = `${prefix}_`;
  const u = `${prefix}+`;
  const map = (field: string, key: string, head: string): Record<string, unknown> => {
    const items = result[field];
    if (!Array.isArray(items)) return result;
    return { ...result, [field]: items.map((i: Record<string, unknown>) => ({ ...i, [key]: strip(i[key], head) })) };
  };
  if (method === 'tools/list') return map('tools', 'name', n);
  if (method === 'prompts/list') return map('prompts', 'name', n);
  if (method === 'resources/list') return map('resources', 'uri', u);
  if (method === 'resources/templates/list') return map('resourceTemplates', 'uriTemplate', u);
  if (method === 'resources/read' && Array.isArray(result.contents)) {
    return { ...result, contents: (result.contents as Record<string, unknown>[]).map((c) => ({ ...c, uri: strip(c.uri, u) })) };
  }
  if ((method === 'tools/call' || method === 'tasks/result') && Array.isArray(result.content)) {
    return {
      ...result,
      content: (result.content as Record<string, unknown>[]).map((c) =>
        c.type === 'resource_link'
          ? { ...c, uri: strip(c.uri, u) }
          : c.type === 'resource' && c.resource && typeof c.resource === 'object'
            ? { ...c, resource: { ...(c.resource as Record<string, unknown>), uri: strip((c.resource as Record<string, unknown>).uri, u) } }
            : c,
      ),
    };
  }
  return result;
};

/** Inbound: the bare name a lane used becomes the prefixed name the gateway routes. Gateway tools stay as they are. */
export const prefixedParams = (method: string, params: Record<string, unknown>, prefix: string): Record<string, unknown> => {
  const t = targetOf(method, params);
  if (!t || (t.kind === 'name' && (t.value === '' || t.value.startsWith('lanegate_'))) || (t.kind === 'uri' && t.value === ''))
    return params;
  return withTarget(method, params, addPrefix(t, prefix));
};
