import type { z } from 'zod';
import type { ProblemPath } from './problem.js';

/** The named entries a cross-check refers to by name. */
const ENTRY_MAPS = new Set(['servers', 'lanes', 'trustDomains', 'commands']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;

const parentOf = (root: unknown, path: ProblemPath): unknown => {
  let node = root;
  for (const k of path.slice(0, -1)) node = isObj(node) ? (node as Obj)[String(k)] : undefined;
  return node;
};

export interface Pruned<T> {
  /** The document with every part the schema refused taken out, parsed; undefined when none could be made. */
  data?: T;
  /** Entries taken out whole, as "servers.NAME": a reference to one is not a second problem. */
  removed: Set<string>;
}

/**
 * So that `check` reports schema problems AND the cross-checks of everything else in one run:
 * takes out what the schema refuses (an unknown key; a bad value; then, if that leaves a hole the
 * schema needs filled, the whole entry it sits in) and parses again, a bounded number of times.
 * Pure: works on a copy. The result is only ever checked, never run.
 */
export const pruneUntilValid = <S extends z.ZodType>(schema: S, raw: unknown, rounds = 12): Pruned<z.output<S>> => {
  const doc = structuredClone(raw);
  const removed = new Set<string>();
  const cut = new Set<string>();
  for (let i = 0; i < rounds; i += 1) {
    const r = schema.safeParse(doc);
    if (r.success) return { data: r.data, removed };
    let progressed = false;
    for (const issue of r.error.issues) {
      const path = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k)) as (string | number)[];
      if (issue.code === 'unrecognized_keys') {
        const at = path.length === 0 ? doc : parentOf(doc, [...path, '']);
        if (isObj(at)) for (const k of issue.keys) progressed = delete (at as Obj)[k] || progressed;
        continue;
      }
      const key = path.join('\u0000');
      const entry = path.length >= 2 && ENTRY_MAPS.has(String(path[0]));
      const parent = parentOf(doc, path);
      // A leaf first; the same place refused again (it is required), or a list item: its entry.
      if (!cut.has(key) && path.length > 0 && isObj(parent) && !Array.isArray(parent) && path.length > (entry ? 2 : 1)) {
        cut.add(key);
        progressed = delete (parent as Obj)[String(path.at(-1))] || progressed;
        continue;
      }
      if (entry) {
        const map = (doc as Obj)[String(path[0])];
        if (isObj(map) && String(path[1]) in map) {
          delete (map as Obj)[String(path[1])];
          removed.add(`${String(path[0])}.${String(path[1])}`);
          progressed = true;
        }
        continue;
      }
      if (path.length === 1 && isObj(doc) && !cut.has(key)) {
        cut.add(key);
        progressed = delete (doc as Obj)[String(path[0])] || progressed;
      }
    }
    if (!progressed) return { removed };
  }
  return { removed };
};

/** Whether a cross-check problem only restates that an entry the schema refused is gone. */
export const aboutRemoved = (message: string, removed: ReadonlySet<string>): boolean =>
  [...removed].some((e) => {
    const [map, name] = e.split('.');
    const noun = map === 'servers' ? 'server' : map === 'trustDomains' ? 'trust domain' : map === 'commands' ? 'command' : 'lane';
    return message.includes(`${noun} "${name}"`);
  });
