import { type DispatchServices, dispatch } from './dispatch.js';
import type { CallContext } from './call-context.js';

/** Subscriptions one holder makes or lets go upstream at once (a listen stream's 100 went all at once). */
const AT_ONCE = 4;

/**
 * Subscribes (on) or releases (off) a holder's resource URIs through the normal dispatch path, so
 * the lane's loadout decides exactly as for any other request. Returns the URIs it succeeded for.
 */
export const changeResources = async (d: DispatchServices, x: CallContext, uris: string[], on: boolean): Promise<string[]> => {
  const method = on ? 'resources/subscribe' : 'resources/unsubscribe';
  const done: (string | undefined)[] = [];
  let next = 0;
  // AT_ONCE at a time, in order (attack round 13: streams of 100 opened and closed in a loop sent
  // thousands of requests to the shared host at once, and it was replaced).
  const worker = async (): Promise<void> => {
    for (let i = next++; i < uris.length; i = next++) {
      const uri = uris[i] as string;
      const r = await dispatch(d, x, { jsonrpc: '2.0', id: `lg-sub-${i}`, method, params: { uri } }).catch(() => undefined);
      done[i] = r?.result && !r.error ? uri : undefined;
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, uris.length) }, worker));
  return done.filter((u): u is string => u !== undefined);
};
