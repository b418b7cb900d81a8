/**
 * Names as lanes see them: `prefix_name` for tools and prompts, `prefix+uri` for resources.
 * A prefix never contains "_" or "+", so splitting at the first one is unambiguous and two
 * servers can never produce the same public name. Pure.
 */
export const SEP = '_';
export const URI_SEP = '+';

export const prefixName = (prefix: string, name: string): string => `${prefix}${SEP}${name}`;

export const splitPrefixed = (name: string): { prefix: string; rest: string } | undefined => {
  const i = name.indexOf(SEP);
  if (i <= 0 || i === name.length - 1) return undefined;
  return { prefix: name.slice(0, i), rest: name.slice(i + 1) };
};

export const prefixUri = (prefix: string, uri: string): string => `${prefix}${URI_SEP}${uri}`;

export const splitPrefixedUri = (uri: string): { prefix: string; rest: string } | undefined => {
  const i = uri.indexOf(URI_SEP);
  if (i <= 0 || i === uri.length - 1) return undefined;
  return { prefix: uri.slice(0, i), rest: uri.slice(i + 1) };
};

export interface Collision {
  name: string;
  publicName: string;
  reason: 'duplicate' | 'empty' | 'too_long';
}

/** Max length of a public tool/prompt name (MCP: 1-128). */
export const MAX_NAME = 128;

/**
 * Finds the names of one upstream's listing that cannot be served under its prefix: a name
 * the upstream lists twice (the second would shadow the first), an empty name, or one too long
 * once prefixed. Any collision refuses the whole upstream: nothing is ever shadowed.
 */
export const findCollisions = (prefix: string, names: readonly string[]): Collision[] => {
  const seen = new Set<string>();
  const out: Collision[] = [];
  for (const name of names) {
    const publicName = prefixName(prefix, name);
    if (name.length === 0) out.push({ name, publicName, reason: 'empty' });
    else if (publicName.length > MAX_NAME) out.push({ name, publicName, reason: 'too_long' });
    else if (seen.has(publicName)) out.push({ name, publicName, reason: 'duplicate' });
    seen.add(publicName);
  }
  return out;
};
