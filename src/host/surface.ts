import { findCollisions, prefixName, prefixUri } from '../naming/prefix.js';
import type { ListMethod } from '../link/lists.js';

type Item = Record<string, unknown>;

/**
 * Renames one upstream's listed items under its prefix (names for tools and prompts, URIs for
 * resources and templates). Returns the collisions instead when any name cannot be served
 * without shadowing another: the caller then refuses the whole upstream. Pure.
 */
export const prefixItems = (
  method: ListMethod,
  prefix: string,
  items: Item[],
): { ok: true; items: Item[] } | { ok: false; detail: string } => {
  if (method === 'tools/list' || method === 'prompts/list') {
    const names = items.map((i) => (typeof i.name === 'string' ? i.name : ''));
    const collisions = findCollisions(prefix, names);
    if (collisions.length > 0) {
      const c = collisions[0];
      return {
        ok: false,
        detail: `${collisions.length} name(s) cannot be served under prefix "${prefix}": "${c?.publicName}" (${c?.reason})`,
      };
    }
    return { ok: true, items: items.map((i) => ({ ...i, name: prefixName(prefix, String(i.name)) })) };
  }
  const field = method === 'resources/list' ? 'uri' : 'uriTemplate';
  const seen = new Set<string>();
  const out: Item[] = [];
  for (const i of items) {
    const raw = i[field];
    if (typeof raw !== 'string' || raw.length === 0) return { ok: false, detail: `a listed resource has no ${field}` };
    const pub = prefixUri(prefix, raw);
    if (seen.has(pub)) return { ok: false, detail: `resource "${pub}" is listed twice` };
    seen.add(pub);
    out.push({ ...i, [field]: pub });
  }
  return { ok: true, items: out };
};

/**
 * URIs inside a result, in the lane's names: a resources/read's contents and a tool's resource
 * links and embedded resources carry the upstream's own URIs; a lane reads them back under the
 * server's prefix. Everything else of the result is passed as it came. Pure.
 */
export const prefixResultUris = (method: string, prefix: string, result: Record<string, unknown>): Record<string, unknown> => {
  const uri = (v: unknown): unknown => (typeof v === 'string' && v.length > 0 ? prefixUri(prefix, v) : v);
  if (method === 'resources/read' && Array.isArray(result.contents))
    return { ...result, contents: (result.contents as Item[]).map((c) => ({ ...c, uri: uri(c.uri) })) };
  if (method === 'tools/call' && Array.isArray(result.content)) {
    const touched = (result.content as Item[]).some((c) => c.type === 'resource_link' || c.type === 'resource');
    if (!touched) return result;
    return {
      ...result,
      content: (result.content as Item[]).map((c) =>
        c.type === 'resource_link'
          ? { ...c, uri: uri(c.uri) }
          : c.type === 'resource' && c.resource && typeof c.resource === 'object'
            ? { ...c, resource: { ...(c.resource as Item), uri: uri((c.resource as Item).uri) } }
            : c,
      ),
    };
  }
  return result;
};
