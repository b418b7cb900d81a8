import { CLIENT_CAPABILITIES, SHARED_CLIENT_CAPABILITIES } from '../upstream/conn.js';
import type { SurfaceChange } from './hash.js';

/**
 * The capability profile of a child: the client capabilities it was offered, by name. A server may
 * list some tools only to clients offering a capability (server-everything lists get-roots-list
 * only when the client offers roots; lanegate offers roots to a lane's own child, never to a shared
 * one), so two children of one server can rightly show two surfaces. Pure.
 */
export const surfaceProfile = (capabilities: Record<string, unknown>): string => Object.keys(capabilities).sort().join(',');

/**
 * Whether a change between surfaces shown to children of DIFFERENT profiles is explained by the
 * profiles: tools appearing or not, nothing else (no item changed, no prompt, resource or
 * instructions). Such a surface is vetted like any other, and is not drift. Pure.
 */
export const capabilityVariant = (changes: readonly SurfaceChange[]): boolean =>
  changes.length > 0 && changes.every((c) => c.kind === 'tool' && (c.change === 'added' || c.change === 'removed'));

/** The profile of a child lanegate starts: a shared (or measuring) one is offered fewer capabilities than a lane's own. */
export const childProfile = (shared: boolean): string => surfaceProfile(shared ? SHARED_CLIENT_CAPABILITIES : CLIENT_CAPABILITIES);
