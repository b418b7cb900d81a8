import { splitPrefixed, splitPrefixedUri } from './prefix.js';

type Params = Record<string, unknown>;

/**
 * The upstream a forwarded request is for, and its params in that upstream's own names. Pure.
 * Tools and prompts carry `prefix_name`, resources `prefix+uri`, completions either in their ref.
 * Returns undefined for a method that is not forwarded by name; `prefix` is undefined when the
 * name carries none (the caller refuses it as outside the lane's catalog).
 */
export const unprefixRequest = (method: string, params: Params): { prefix: string | undefined; params: Params } | undefined => {
  if (method === 'tools/call' || method === 'prompts/get') {
    const parts = splitPrefixed(typeof params.name === 'string' ? params.name : '');
    return { prefix: parts?.prefix, params: { ...params, name: parts?.rest } };
  }
  if (method === 'completion/complete') {
    const ref = (params.ref ?? {}) as { type?: string; name?: string; uri?: string };
    const byUri = ref.type === 'ref/resource';
    const parts = byUri
      ? splitPrefixedUri(typeof ref.uri === 'string' ? ref.uri : '')
      : splitPrefixed(typeof ref.name === 'string' ? ref.name : '');
    return { prefix: parts?.prefix, params: { ...params, ref: byUri ? { ...ref, uri: parts?.rest } : { ...ref, name: parts?.rest } } };
  }
  if (method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe') {
    const parts = splitPrefixedUri(typeof params.uri === 'string' ? params.uri : '');
    return { prefix: parts?.prefix, params: { ...params, uri: parts?.rest } };
  }
  return undefined;
};
