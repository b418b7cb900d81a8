/**
 * The front's view of a lane: its WHOLE catalog, across the hosts (trust domains) that serve it.
 * A host judges each server against the servers it holds itself; only the front sees a server
 * beside the servers of other hosts. A description naming a tool of a server on another host is
 * steering, a name confusable with such a tool is shadowing; a server's own siblings are its own
 * business. What the hosts judged already (the servers of one host) is not judged again here. Pure.
 */
import { contextFindings } from './context.js';
import type { Finding } from './findings.js';
import { laneWithheld, type Refusal } from './refusal.js';
import { toolStrings } from './strings.js';
import { type TrustOverride, uncovered } from './trust.js';

/** One server of a lane's catalog as the front lists it: its host, its prefix, its tools under their own names. */
export interface CatalogServer {
  server: string;
  /** The host (trust domain, or domain@lane) that serves it for the lane. */
  host: string;
  prefix: string;
  /** The tool definitions with the server's own (unprefixed) names, as the host vetted them. */
  tools: Record<string, unknown>[];
}

const namesOf = (s: CatalogServer): string[] => s.tools.map((t) => String(t.name ?? ''));

/**
 * Each server's findings that only the lane's whole catalog reveals (servers with none are left
 * out). A tool of another host is known by its own name and by the name the lane sees
 * (`prefix_name`): a description may name either. Findings an operator's reviewed override covers
 * (pinned to the item's exact hash) are not open.
 */
export const catalogFindings = (servers: readonly CatalogServer[], overrides: readonly TrustOverride[] = []): Map<string, Finding[]> => {
  const out = new Map<string, Finding[]>();
  const hosts = new Set(servers.map((s) => s.host));
  if (hosts.size < 2) return out;
  for (const s of servers) {
    const others = servers
      .filter((o) => o.host !== s.host)
      .map((o) => ({ server: o.server, tools: [...namesOf(o), ...namesOf(o).map((n) => `${o.prefix}_${n}`)] }));
    const found = contextFindings(
      s.tools.flatMap((t) => toolStrings(t)),
      { own: namesOf(s), others, foreignOnly: true },
    );
    const open = uncovered(s.server, { tools: s.tools }, found, overrides);
    if (open.length > 0) out.set(s.server, open);
  }
  return out;
};

/** A server withheld from one lane by that lane's catalog, in the refusal format every guard refusal has. */
export const catalogRefusal = (server: string, lane: string, open: readonly Finding[]): Refusal =>
  laneWithheld(
    server,
    lane,
    open,
    `upstream withheld from lane "${lane}", whose catalog joins it with servers of other hosts; lanes without those servers still get it`,
    'lane catalog',
  );
