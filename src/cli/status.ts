import type { Policy } from '../policy/model.js';
import { operatorApi } from './operator-api.js';

interface Status {
  front: { pid: number; rssMb?: number; url: string };
  servers: {
    server: string;
    domain: string;
    placement: string;
    /** What the running host runs, while it differs (a live change being applied). */
    runningNow?: string;
    promotedAt?: number;
    retreatedAt?: number;
    joined?: { lane: string; at: number }[];
    evidence: string;
    scope: string[];
    refuted: string[];
    sharedLanes: string[];
    escalations: { lane: string; request: string }[];
    guard: string;
    drift?: string;
  }[];
  lanes: { lane: string; enabled: boolean; servers: string[]; sessions: number; lastSeen?: string }[];
  hosts: {
    key: string;
    pid: number;
    rssMb?: number;
    children: { server: string; placement: string; lane?: string; lanes?: string[]; pid: number; rssMb?: number }[];
  }[];
  hazards: { server: string; codes: string[]; count: number }[];
  refusals: { server: string; findings: { item: string; finding: string }[] }[];
  failures?: { server: string; lane?: string; kind: string; detail: string; at: string }[];
}

const mb = (n: number | undefined): string => (n === undefined ? '?' : `${n} MB`);

/** The status as an operator reads it in a terminal. Pure. */
export const renderStatus = (s: Status): string => {
  const out: string[] = [`gateway ${s.front.url}  front pid ${s.front.pid}, ${mb(s.front.rssMb)}`, '', 'servers:'];
  for (const r of s.servers) {
    out.push(
      `  ${r.server.padEnd(14)} ${r.placement.padEnd(9)} ${r.evidence.padEnd(12)} guard ${r.guard}${r.drift ? `  DRIFT: ${r.drift}` : ''}`,
    );
    if (r.runningNow) out.push(`    runs ${r.runningNow} right now; the running host is taking the new placement`);
    else if (r.placement === 'shared')
      out.push(`    scope: ${r.scope.join(', ') || 'none'}; on the shared child: ${r.sharedLanes.join(', ') || 'no lane yet'}`);
    if (r.promotedAt)
      out.push(
        `    promoted live at ${new Date(r.promotedAt).toISOString()}; moved onto the shared child since: ${r.joined?.map((j) => j.lane).join(', ') || 'none'}`,
      );
    if (r.retreatedAt) out.push(`    retreated to dedicated live at ${new Date(r.retreatedAt).toISOString()}`);
    for (const e of r.escalations) out.push(`    lane ${e.lane} runs it dedicated since it called ${e.request}`);
    if (r.refuted.length > 0) out.push(`    refuted: ${r.refuted.join(', ')}`);
  }
  out.push('', 'lanes:');
  for (const l of s.lanes)
    out.push(
      `  ${l.lane.padEnd(14)} ${l.enabled ? 'enabled ' : 'disabled'} sessions ${String(l.sessions).padEnd(4)} ${l.lastSeen ? `last call ${l.lastSeen}` : 'no call yet'}  (${l.servers.join(', ')})`,
    );
  out.push('', 'hosts and children:');
  for (const h of s.hosts) {
    out.push(`  host ${h.key} pid ${h.pid}, ${mb(h.rssMb)}`);
    for (const c of h.children)
      out.push(
        `    ${c.server.padEnd(14)} ${c.placement.padEnd(9)} pid ${String(c.pid).padEnd(7)} ${mb(c.rssMb).padEnd(7)} ${c.lane ? `lane ${c.lane}` : `lanes ${c.lanes?.join(', ') || 'none yet'}`}`,
      );
  }
  out.push('', `hazards (current launch identities): ${s.hazards.length === 0 ? 'none' : ''}`);
  for (const h of s.hazards) out.push(`  ${h.server}: ${h.codes.join(', ')} ×${h.count}`);
  const failures = s.failures ?? [];
  out.push(`failing to start or crashed: ${failures.length === 0 ? 'none' : ''}`);
  for (const f of failures)
    out.push(
      `  ${f.server}${f.lane ? ` (lane ${f.lane})` : ''} ${f.kind === 'start_failed' ? 'failed to start' : 'crashed'} at ${f.at}: ${f.detail}`,
    );
  out.push(`refusals by the guard: ${s.refusals.length === 0 ? 'none' : ''}`);
  for (const r of s.refusals) for (const f of r.findings) out.push(`  ${r.server} ${f.item}: ${f.finding}`);
  return `${out.join('\n')}\n`;
};

/** `lanegate status [--json]`: the running gateway's state, from its operator API. */
export const runStatus = async (policy: Policy, json: boolean, url?: string): Promise<number> => {
  const api = operatorApi(policy, url);
  if (!api) return 1;
  let res: Response;
  try {
    res = await fetch(`${api.base}/api/status`, { headers: api.headers, signal: AbortSignal.timeout(10_000) });
  } catch {
    process.stderr.write(`no gateway answers at ${api.base} (is it running? --url points elsewhere)\n`);
    return 1;
  }
  if (!res.ok) {
    process.stderr.write(`the gateway refused the status request: HTTP ${res.status}\n`);
    return 1;
  }
  const s = (await res.json()) as Status;
  process.stdout.write(json ? `${JSON.stringify(s, null, 2)}\n` : renderStatus(s));
  return 0;
};
