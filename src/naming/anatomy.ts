import { prefixName, prefixUri, splitPrefixed, splitPrefixedUri } from './prefix.js';

type Params = Record<string, unknown>;

/**
 * Where each forwarded request carries the name of what it is about: a tool or prompt `name`, a
 * resource `uri`, or a completion's `ref` (a prompt's name or a resource's URI). One table, read
 * by bare naming, unprefixing in the host, routing in the front and the Mcp-Name header check.
 */
export type Anatomy = { at: 'name' } | { at: 'uri' } | { at: 'ref' };

export const ANATOMY: Readonly<Record<string, Anatomy>> = {
  'tools/call': { at: 'name' },
  'prompts/get': { at: 'name' },
  'resources/read': { at: 'uri' },
  'resources/subscribe': { at: 'uri' },
  'resources/unsubscribe': { at: 'uri' },
  'completion/complete': { at: 'ref' },
};

/** What a request names: a name (tools, prompts) or a URI (resources), and its text ('' when absent). */
export interface Target {
  kind: 'name' | 'uri';
  value: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const targetOf = (method: string, params: Params): Target | undefined => {
  const a = ANATOMY[method];
  if (!a) return undefined;
  if (a.at === 'name') return { kind: 'name', value: str(params.name) };
  if (a.at === 'uri') return { kind: 'uri', value: str(params.uri) };
  const ref = (params.ref ?? {}) as { type?: unknown; name?: unknown; uri?: unknown };
  if (ref.type === 'ref/resource') return { kind: 'uri', value: str(ref.uri) };
  if (ref.type === 'ref/prompt') return { kind: 'name', value: str(ref.name) };
  return undefined;
};

/** The same request naming `value` instead (params copied once, everything else as it came). */
export const withTarget = (method: string, params: Params, value: string | undefined): Params => {
  const a = ANATOMY[method];
  if (!a) return params;
  if (a.at === 'name') return { ...params, name: value };
  if (a.at === 'uri') return { ...params, uri: value };
  const ref = (params.ref ?? {}) as Params;
  return { ...params, ref: ref.type === 'ref/resource' ? { ...ref, uri: value } : { ...ref, name: value } };
};

/** The reversible prefix transform, per kind. */
export const addPrefix = (t: Target, prefix: string): string =>
  t.kind === 'uri' ? prefixUri(prefix, t.value) : prefixName(prefix, t.value);
export const splitPrefix = (t: Target): { prefix: string; rest: string } | undefined =>
  t.kind === 'uri' ? splitPrefixedUri(t.value) : splitPrefixed(t.value);
