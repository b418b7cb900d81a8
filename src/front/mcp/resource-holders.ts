import { type DispatchServices, dispatch } from './dispatch.js';
import type { CallContext } from './call-context.js';

export { MAX_RESOURCE_SUBSCRIPTIONS } from './param-checks.js';

/**
 * Subscribes (on) or releases (off) a holder's resource URIs through the normal dispatch path, so
 * the lane's loadout decides exactly as for any other request. Returns the URIs it succeeded for.
 */
export const changeResources = async (d: DispatchServices, x: CallContext, uris: string[], on: boolean): Promise<string[]> => {
  const method = on ? 'resources/subscribe' : 'resources/unsubscribe';
  const done = await Promise.all(
    uris.map(async (uri, i) => {
      const r = await dispatch(d, x, { jsonrpc: '2.0', id: `lg-sub-${i}`, method, params: { uri } }).catch(() => undefined);
      return r?.result && !r.error ? uri : undefined;
    }),
  );
  return done.filter((u): u is string => u !== undefined);
};
