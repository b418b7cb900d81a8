import type { Absence } from '../link/protocol.js';
import { escapeUntrusted } from '../log/escape.js';
import type { HostGuard } from './guard.js';

/**
 * Why an upstream is withheld from a lane right now (guard, name collision or drift), with the
 * remedy; undefined when it is not. `refused` is keyed by server, or `server\0lane` for a lane's own child.
 */
export const absenceOf = (
  d: { guard: HostGuard; refused: ReadonlyMap<string, string>; withheld: ReadonlyMap<string, string> },
  server: string,
  lane?: string,
): Omit<Absence, 'server'> | undefined => {
  const g = d.guard.refusal(server, lane);
  if (g)
    return {
      code: 'refused',
      item: g.item ?? g.tool,
      // The item's name is the server's (or, on a lane's own child, the lane's) choice: escaped and short.
      reason: `refused by the guard (layer ${g.layer}, ${escapeUntrusted(g.tool, 120)}: ${g.finding}); see: ${g.remedy.join('; ')}`,
    };
  const collision = d.refused.get(server) ?? (lane === undefined ? undefined : d.refused.get(`${server}\0${lane}`));
  if (collision) return { code: 'collision', reason: collision };
  const drift = d.withheld.get(server);
  return drift ? { code: 'drift', reason: drift } : undefined;
};
