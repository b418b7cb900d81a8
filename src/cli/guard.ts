import { readFileSync } from 'node:fs';
import { FINDING_TEXT, type Finding, judgeSurface } from '../guard/scanner.js';
import { explainVerdicts } from './explain.js';
import { formatRefusal, semanticRemedy } from '../guard/refusal.js';
import { escapeUntrusted } from '../log/escape.js';
import type { Policy } from '../policy/model.js';
import { type CatalogRecord, type GuardRecord, readGuard } from '../records/guard-file.js';
import { addTrust, readTrust } from '../records/trust-file.js';
import { lanesWithServer } from '../policy/queries.js';

interface Listed {
  server?: string;
  tools: Record<string, unknown>[];
  instructions?: string;
}

/** A tools/list result ({"tools": [...]}, its JSON-RPC envelope, or a bare array) as one server's listing. */
const listedOf = (doc: unknown, server?: string): Listed | undefined => {
  const root = (doc as { result?: unknown } | null)?.result ?? doc;
  const tools = Array.isArray(root) ? root : ((root as { tools?: unknown } | null)?.tools as unknown[] | undefined);
  if (!Array.isArray(tools) || tools.some((t) => t === null || typeof t !== 'object')) return undefined;
  const instructions = (root as { instructions?: unknown }).instructions;
  return {
    ...(server ? { server } : {}),
    tools: tools as Record<string, unknown>[],
    ...(typeof instructions === 'string' ? { instructions } : {}),
  };
};

/** One server's listing, or a lane's catalog: {"servers": {"name": <tools/list result>, ...}}. */
const listingsOf = (doc: unknown): Listed[] | undefined => {
  const servers = (doc as { servers?: unknown } | null)?.servers;
  if (servers !== null && typeof servers === 'object' && !Array.isArray(servers)) {
    const out = Object.entries(servers as Record<string, unknown>).map(([name, d]) => listedOf(d, name));
    return out.every((l) => l !== undefined) ? (out as Listed[]) : undefined;
  }
  const one = listedOf(doc);
  return one ? [one] : undefined;
};

/**
 * `lanegate scan [FILE|-] [--explain]`: vet a tools/list result before adding a server. Each tool
 * is judged against the whole list (its sibling tools) and the server's `instructions` if the
 * file carries them. A lane's catalog of several servers ({"servers": {name: tools/list, ...}}) is
 * judged server by server with the others as context: naming another server's tool is steering, a
 * look-alike of one is shadowing. Exit 1 if any tool is refused.
 */
export const runScan = (file: string | undefined, explain = false): number => {
  const text = readFileSync(file === undefined || file === '-' ? 0 : file, 'utf8');
  const usage = 'expected a tools/list result ({"tools": [...]}), an array of tool definitions, or {"servers": {name: tools/list}}\n';
  let doc: unknown;
  try {
    doc = JSON.parse(text) as unknown;
  } catch {
    process.stderr.write(`not JSON: ${usage}`);
    return 2;
  }
  const listings = listingsOf(doc);
  if (!listings) {
    process.stderr.write(usage);
    return 2;
  }
  let refused = false;
  for (const l of listings) {
    const others = listings
      .filter((o) => o !== l)
      .map((o) => ({ server: o.server ?? '', tools: o.tools.map((t) => String(t.name ?? '')) }));
    const verdicts = judgeSurface({ tools: l.tools, ...(l.instructions ? { instructions: l.instructions } : {}) }, undefined, { others });
    refused ||= verdicts.some((v) => v.findings.length > 0);
    if (explain) process.stdout.write(`${l.server ? `server ${l.server}\n` : ''}${explainVerdicts(verdicts).join('\n')}\n`);
    else
      for (const v of verdicts)
        process.stdout.write(
          `${JSON.stringify({
            ...(l.server ? { server: l.server } : {}),
            [v.kind === 'instructions' ? 'instructions' : 'tool']: v.item,
            verdict: v.findings.length > 0 ? 'refuse' : 'allow',
            findings: v.findings.map((f) => ({ code: f.code, finding: f.finding, field: f.field, matched: f.matched })),
          })}\n`,
        );
  }
  return refused ? 1 : 0;
};

/** `lanegate trust SERVER [--tool T] --reviewed-by WHO [--note N]`: override findings, pinned to the exact surface. */
/**
 * Whether what the operator typed names this item: its exact name, or the name as lanegate prints
 * it (control characters escaped), so a remedy pasted from a refusal names the item it came from.
 */
const namesItem = (item: string, typed: string): boolean => item === typed || escapeUntrusted(item, Number.MAX_SAFE_INTEGER) === typed;

export const runTrust = (
  policy: Policy,
  server: string,
  tool: string | undefined,
  reviewedBy: string,
  note: string | undefined,
): number => {
  if (!policy.servers[server]) {
    process.stderr.write(`server "${server}" is not in the policy\n`);
    return 2;
  }
  const guard = readGuard(policy.gateway.stateDir);
  const rec = guard.servers[server];
  // The hosts' findings and the front's (a lane's catalog across hosts): one override covers the item for both.
  const found = [...(rec?.findings ?? []), ...Object.values(guard.catalog?.[server] ?? {}).flatMap((c) => c.findings)];
  const open = found.filter((f) => tool === undefined || namesItem(f.item, tool));
  if (!rec || open.length === 0) {
    process.stderr.write(
      `nothing to trust: the guard has no open finding for ${tool ? `tool "${tool}" of ` : ''}"${server}" (see lanegate inspect ${server})\n`,
    );
    return 1;
  }
  const at = new Date().toISOString();
  const items = [...new Map(open.map((f) => [`${f.kind}:${f.item}`, f])).values()];
  const overrides = items.flatMap((f) => {
    const hash = rec.itemHashes[`${f.kind}:${f.item}`];
    return hash ? [{ server, kind: f.kind, item: f.item, hash, reviewedBy, ...(note ? { note } : {}), at }] : [];
  });
  addTrust(policy.gateway.stateDir, overrides);
  for (const o of overrides) {
    process.stdout.write(
      `trusted ${o.kind} "${escapeUntrusted(o.item)}" of "${server}" as reviewed by ${reviewedBy}, pinned to ${o.hash.slice(0, 16)}…; any change re-opens it\n`,
    );
  }
  process.stdout.write('the running gateway picks this up on the next request\n');
  return 0;
};

const showFinding = (f: Finding): string =>
  `  - ${f.code} (${FINDING_TEXT[f.code]}) in ${f.kind} "${escapeUntrusted(f.item)}" ${f.field}\n      matched: "${escapeUntrusted(f.matched, 240)}"`;

/** The refusal as the host would have shown it: for a lane's own child, at drift, or at admission. */
const refusalLines = (policy: Policy, server: string, rec: GuardRecord, first: Finding): string[] => {
  // Refused when its surface changed under a pinned admission (drift), or at its first admission.
  const lastDrift = rec.drift.at(-1);
  const atDrift =
    rec.status === 'refused' && lastDrift !== undefined && lastDrift.to === rec.surfaceHash && lastDrift.outcome === 'refused';
  return [
    '',
    formatRefusal({
      upstream: server,
      lanes: rec.lane !== undefined ? [rec.lane] : lanesWithServer(policy, server),
      layer: 'semantic',
      tool: first.item,
      finding: first.finding,
      matched: first.matched,
      action:
        rec.lane !== undefined
          ? `upstream withheld from lane "${rec.lane}", whose own child showed this; every other child is vetted as it changes`
          : atDrift
            ? 'upstream withdrawn from every lane at once; lanes served without it'
            : 'upstream not registered; lanes served without it',
      remedy: semanticRemedy(server, first.item),
      when: atDrift ? 'drift' : 'admission',
    }),
    '',
  ];
};

/** What lanes' catalogs across hosts withhold the server for (the front's findings), with each refusal. */
const catalogLines = (byLane: Record<string, CatalogRecord>, tool: string | undefined): string[] => {
  const lanes = Object.entries(byLane)
    .map(([lane, r]) => ({ lane, r, findings: r.findings.filter((f) => !tool || namesItem(f.item, tool)) }))
    .filter((x) => x.findings.length > 0);
  if (lanes.length === 0) return [];
  return [
    `  withheld by lanes' catalogs (across hosts): ${lanes.map((x) => x.lane).join(', ')}`,
    ...lanes.flatMap((x) => [`  lane ${x.lane} (seen ${x.r.seenAt}):`, ...x.findings.map(showFinding), '', formatRefusal(x.r.refusal), '']),
  ];
};

/** The reviewed overrides of the server (or tool), each said to cover the current surface or to be stale. */
const overrideLines = (policy: Policy, server: string, rec: GuardRecord, tool: string | undefined): string[] => {
  const trusted = readTrust(policy.gateway.stateDir).filter((o) => o.server === server && (!tool || namesItem(o.item, tool)));
  return [
    `  overrides:    ${trusted.length === 0 ? 'none' : ''}`,
    ...trusted.map((o) => {
      const current = rec.itemHashes[`${o.kind}:${o.item}`];
      return `  - ${o.kind} "${escapeUntrusted(o.item)}" reviewed by ${o.reviewedBy} at ${o.at}${o.note ? ` (${escapeUntrusted(o.note)})` : ''}: ${current === o.hash ? 'covers the current surface' : 'STALE: the item changed since review'}`;
    }),
  ];
};

/** The last ten surface changes. */
const driftLines = (rec: GuardRecord): string[] => [
  `  drift:        ${rec.drift.length === 0 ? 'none' : ''}`,
  ...rec.drift
    .slice(-10)
    .map(
      (d) =>
        `  - ${d.at} ${d.from.slice(0, 12)} → ${d.to.slice(0, 12)} (${d.outcome}): ${d.changes.map((c) => `${c.kind} ${escapeUntrusted(c.item)} ${c.change}`).join(', ')}`,
    ),
];

/** The tools: one line each, or (for one tool) its whole JSON. */
const toolLines = (rec: GuardRecord, tool: string | undefined): string[] => {
  const tools = (rec.surface.tools ?? []).filter((t) => !tool || namesItem(String(t.name ?? ''), tool));
  return [
    `  tools (${tools.length}):`,
    ...tools.map((t) =>
      tool
        ? JSON.stringify(t, null, 2).replace(/^/gm, '    ')
        : `  - ${escapeUntrusted(t.name)}: ${escapeUntrusted(String(t.description ?? ''), 160)}`,
    ),
  ];
};

/** `lanegate inspect SERVER [--tool T]`: surface, findings, pinned hash, overrides and drift, from the records. */
export const runInspect = (policy: Policy, server: string, tool: string | undefined): number => {
  const s = policy.servers[server];
  if (!s) {
    process.stderr.write(`server "${server}" is not in the policy\n`);
    return 2;
  }
  const guard = readGuard(policy.gateway.stateDir);
  const rec = guard.servers[server];
  const out: string[] = [`server "${server}" (prefix ${s.prefix}, domain ${s.domain})`];
  if (!rec) {
    out.push('  not seen yet: the guard scans a surface when a lane first uses the server');
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  }
  out.push(`  guard:        ${rec.status} (seen ${rec.seenAt})`);
  out.push(`  surface hash: ${rec.surfaceHash}`);
  out.push(`  pinned hash:  ${rec.pinnedHash ?? '(none: never admitted)'}`);
  const findings = rec.findings.filter((f) => !tool || namesItem(f.item, tool));
  out.push(`  findings:     ${findings.length === 0 ? 'none' : ''}`);
  out.push(...findings.map(showFinding));
  const first = findings[0];
  if (first) out.push(...refusalLines(policy, server, rec, first));
  out.push(...catalogLines(guard.catalog?.[server] ?? {}, tool));
  out.push(...overrideLines(policy, server, rec, tool), ...driftLines(rec));
  out.push('  why (each signal the guard saw, with its weight):');
  out.push(...explainVerdicts(judgeSurface(rec.surface), tool).map((l) => `    ${l}`));
  out.push(...toolLines(rec, tool));
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
};
