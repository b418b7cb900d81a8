import type { Policy } from './model.js';
import { expandLane } from './placeholders.js';

/** Secret files a domain's host will read, expanded for one lane (or as-is for a shared domain). */
export const secretFilesFor = (p: Policy, domain: string, lane?: string): { name: string; file: string }[] =>
  (p.domains[domain]?.secrets ?? []).map((s) => ({ name: s.name, file: expandLane(s.file, lane) }));

/** Lanes that use at least one enabled server of this domain. */
export const lanesOfDomain = (p: Policy, domain: string): string[] =>
  Object.values(p.lanes)
    .filter((l) => l.servers.some((s) => p.servers[s]?.domain === domain))
    .map((l) => l.name);

/** Lanes whose loadout names this server (enabled or not: who would see it). */
export const lanesWithServer = (p: Pick<Policy, 'lanes'>, server: string): string[] =>
  Object.values(p.lanes)
    .filter((l) => l.servers.includes(server))
    .map((l) => l.name);
