import { absenceOfError } from '../link/absence.js';
import { LIST_FIELDS, type ListMethod } from '../link/lists.js';
import { type Absence, META } from '../link/protocol.js';
import type { Surface } from '../guard/scanner.js';
import { escapeUntrusted } from '../log/escape.js';
import type { Log } from '../log/lite.js';
import type { ServerSlot } from './slot.js';
import { prefixItems } from './surface.js';

type Params = Record<string, unknown>;

export interface ListDeps {
  /** The lane's servers on this host. */
  slots: ServerSlot[];
  /** A server's vetted surface (fetched, inventoried and scanned by the guard). */
  surface: (slot: ServerSlot) => Promise<Surface>;
  /** Why a server is withheld right now, if it is. */
  unavailable: (server: string) => Omit<Absence, 'server'> | undefined;
  /** Records a server refused for names that would collide under its prefix. */
  refuse: (server: string, reason: string) => void;
  log: Log;
}

/** Items prefixed once per surface: every lane listing a shared child reads the same array. */
const prefixedOnce = new WeakMap<Params[], { prefix: string; r: ReturnType<typeof prefixItems> }>();
const prefixedItems = (method: ListMethod, prefix: string, items: Params[]): ReturnType<typeof prefixItems> => {
  const known = prefixedOnce.get(items);
  if (known && known.prefix === prefix) return known.r;
  const r = prefixItems(method, prefix, items);
  prefixedOnce.set(items, { prefix, r });
  return r;
};

/**
 * One list method for a lane: every server's vetted items under its prefix, and for each server
 * that cannot be listed, an absence with its code (in `_meta`), never a silent gap.
 */
export const listForLane = async (d: ListDeps, method: ListMethod): Promise<Params> => {
  const field = LIST_FIELDS[method];
  const absent: Absence[] = [];
  const lists = await Promise.all(
    d.slots.map(async (slot) => {
      const name = slot.config.name;
      try {
        const surface = await d.surface(slot);
        const why = d.unavailable(name);
        if (why) {
          absent.push({ server: name, ...why });
          return [];
        }
        const items = (surface[field] as Params[] | undefined) ?? [];
        const r = prefixedItems(method, slot.config.prefix, items);
        if (!r.ok) {
          const reason = `refused: ${r.detail}`;
          d.refuse(name, reason);
          d.log.error(
            { event: 'upstream_refused', server: name, layer: 'structural', detail: escapeUntrusted(r.detail) },
            `REFUSED upstream "${name}": ${escapeUntrusted(r.detail)}`,
          );
          absent.push({ server: name, code: 'collision', reason });
          return [];
        }
        return r.items;
      } catch (e) {
        absent.push({ server: name, ...absenceOfError(e) });
        return [];
      }
    }),
  );
  return { [field]: lists.flat(), _meta: { [META.absent]: absent } };
};
