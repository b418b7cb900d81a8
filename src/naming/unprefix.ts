import { splitPrefix, targetOf, withTarget } from './anatomy.js';

type Params = Record<string, unknown>;

/**
 * The upstream a forwarded request is for, and its params in that upstream's own names. Pure.
 * Tools and prompts carry `prefix_name`, resources `prefix+uri`, completions either in their ref.
 * Returns undefined for a method that is not forwarded by name; `prefix` is undefined when the
 * name carries none (the caller refuses it as outside the lane's catalog).
 */
export const unprefixRequest = (method: string, params: Params): { prefix: string | undefined; params: Params } | undefined => {
  const t = targetOf(method, params) ?? (method === 'completion/complete' ? { kind: 'name' as const, value: '' } : undefined);
  if (!t) return undefined;
  const parts = splitPrefix(t);
  return { prefix: parts?.prefix, params: withTarget(method, params, parts?.rest) };
};
