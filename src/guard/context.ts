/**
 * What only a gateway knows: the lane's whole catalog. A description that names a tool of ANOTHER
 * server is steering (a server's own siblings are its business); a tool whose name is confusable
 * with (or the same as) another server's tool is shadowing; a name mixing scripts is a spoof on its
 * own. Pure; the host and `lanegate scan` pass the catalog in.
 */
import { mixesScripts, skeleton, standIns } from './confusables.js';
import { FINDING_TEXT, type Finding } from './findings.js';
import { normalise } from './normalize.js';
import type { VisibleString } from './strings.js';

/** The lane's catalog as one server sees it: its own tool names, and every other server's. */
export interface GuardContext {
  /** This server's own tool and prompt names (siblings). */
  own?: string[];
  /** The other servers in the lane (or on the host), each with its tool names. */
  others: { server: string; tools: string[] }[];
  /**
   * Only what involves another server: a name that mixes scripts with no look-alike among the
   * others is left to whoever sees the whole surface (the front's view of a lane, which a host has
   * judged already).
   */
  foreignOnly?: boolean;
}

const isAscii = (s: string): boolean => /^[\x20-\x7e]*$/.test(s);

/** A name distinctive enough to count as a reference when it appears in prose. */
const distinctive = (name: string): boolean => name.length >= 4 && (/[_.-]/.test(name) || /[a-z][A-Z]/.test(name) || name.length >= 12);

/** A name as written, but for case and separators: get_current_time and get-current-time are one name. */
const spelling = (name: string): string => name.toLowerCase().replace(/[-_.\s]+/g, '_');

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Findings from the lane's catalog for one server's strings. */
export const contextFindings = (strings: VisibleString[], ctx: GuardContext): Finding[] => {
  const out: Finding[] = [];
  // Not the method names its schemas enumerate: a server could list another's tool there to make it "its own".
  const own = new Set([...(ctx.own ?? []), ...strings.filter((v) => v.field === 'name').map((v) => v.text)]);
  const ownSkeletons = new Set([...own].map(skeleton));
  // The same name on two servers is not a spoof (lanegate prefixes names apart), nor the same name
  // in another naming convention (list-tables, list_tables); a look-alike is.
  const ownSpellings = new Set([...own].map(spelling));
  const foreign = ctx.others.flatMap((o) =>
    o.tools.filter((t) => !ownSpellings.has(spelling(t))).map((t) => ({ server: o.server, name: t, sk: skeleton(t) })),
  );
  const refs = foreign.filter((f) => distinctive(f.name) && !ownSkeletons.has(f.sk));
  const refRe = refs.length > 0 ? new RegExp(`(?<![\\w.-])(?:${refs.map((r) => escapeRe(r.name)).join('|')})(?![\\w-])`, 'i') : undefined;
  const add = (v: VisibleString, code: Finding['code'], matched: string): void => {
    if (!out.some((f) => f.item === v.item && f.code === code))
      out.push({ code, kind: v.kind, item: v.item, field: v.field, matched, finding: FINDING_TEXT[code] });
  };
  for (const v of strings) {
    if (v.field === 'name' && (v.kind === 'tool' || v.kind === 'prompt')) {
      const sk = skeleton(v.text);
      // The plainer spelling is not the spoof of a look-alike that stands other letters or digits in
      // for its letters (secur1ty_scanner, ѕecurity_scanner): that one is. Equally plain: both are.
      const plainer = (f: { name: string }): boolean => (isAscii(v.text) && !isAscii(f.name)) || standIns(v.text) < standIns(f.name);
      const same = foreign.find((f) => f.sk === sk && f.name !== v.text && !plainer(f));
      if (same) add(v, 'shadowing', `${v.text} reads as ${same.server}'s ${same.name}`);
      else if (!ctx.foreignOnly && mixesScripts(v.text)) add(v, 'shadowing', `${v.text} mixes scripts (reads as ${skeleton(v.text)})`);
      continue;
    }
    if (!refRe || v.field.endsWith('(name)')) continue;
    const text = normalise(v.text);
    const m = refRe.exec(text);
    // A value that is the name and nothing else (an enum of methods: create_project) is what the
    // tool accepts, not prose steering the agent to another server's tool.
    if (m && m[0].length < text.trim().length) {
      const r = refs.find((x) => x.name.toLowerCase() === m[0].toLowerCase());
      add(v, 'foreign_tool_reference', `names ${r?.server ?? 'another server'}'s tool ${m[0]}`);
    }
  }
  return out;
};
