import type { Era } from '../upstream/conn.js';
import type { ServerConfig } from '../policy/model.js';
import type { Instance } from './slot-types.js';

/**
 * Which protocol era a server's child speaks (`upstreamEra`), and what happens when an `auto`
 * child answers in the other one. Decisions only; the slot (slot.ts) owns its children.
 */

/** The link era a lane request of `era` uses with this server, given the eras it has shown it does not speak. */
export const linkEraFor = (setting: ServerConfig['upstreamEra'], unspoken: ReadonlySet<Era>, era: Era): Era => {
  if (setting === 'legacy' || setting === 'modern') return setting;
  if (setting === 'match' || !unspoken.has(era)) return era;
  return era === 'modern' ? 'legacy' : 'modern';
};

/**
 * `auto`: the upstream answered in the other era. The child becomes the one for that era, or,
 * if that one exists already, is stopped in its favour. Returns false in the second case.
 */
export const adoptEra = (instances: Map<string, Instance>, unspoken: Set<Era>, inst: Instance, spoken: Era): boolean => {
  unspoken.add(inst.era);
  const target = `${inst.key.slice(0, inst.key.lastIndexOf('|'))}|${spoken}`;
  if (instances.get(inst.key) === inst) instances.delete(inst.key);
  if (instances.has(target)) return false;
  inst.key = target;
  inst.era = spoken;
  instances.set(target, inst);
  return true;
};
