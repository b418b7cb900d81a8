import { operatorApi } from './operator-api.js';
import type { Policy } from '../policy/model.js';

interface ReloadBody {
  ok: boolean;
  problems: string[];
  changes: { sessionsEnded?: number; hosts?: Record<string, unknown> };
}

/** One host's part of a reload, in words. Pure. */
const hostLine = (key: string, r: unknown): string => {
  if (typeof r === 'string') return `  host ${key}: ${r}`;
  const o = (r ?? {}) as { stopped?: string[]; added?: string[] };
  const parts = [
    o.added?.length ? `started serving ${o.added.join(', ')}` : '',
    o.stopped?.length ? `stopped ${o.stopped.join(', ')}` : '',
  ].filter(Boolean);
  return `  host ${key}: ${parts.join('; ') || 'unchanged'}`;
};

/** A reload's result as an operator reads it. Pure. */
export const renderReload = (b: ReloadBody, file: string): string => {
  const ended = b.changes.sessionsEnded ?? 0;
  const hosts = Object.entries(b.changes.hosts ?? {});
  return [
    `reloaded ${file}: ${ended === 0 ? 'no session ended' : `${ended} session(s) or stream(s) ended (their token or lane is no longer admitted)`}`,
    ...hosts.map(([k, r]) => hostLine(k, r)),
    ...(hosts.length === 0 ? ['  no host was running'] : []),
  ].join('\n');
};

/** `lanegate reload [--json]`: asks the running gateway to re-read its policy; prints what changed or why not. */
export const runReload = async (policy: Policy, url: string | undefined, json = false): Promise<number> => {
  const api = operatorApi(policy, url);
  if (!api) return 2;
  const { base, headers } = api;
  let res: Response;
  try {
    res = await fetch(`${base}/api/reload`, { method: 'POST', headers });
  } catch {
    process.stderr.write(`the gateway is not reachable at ${base}\n`);
    return 1;
  }
  const body = (await res.json()) as ReloadBody;
  if (json) process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  if (!body.ok) {
    if (!json) for (const p of body.problems) process.stderr.write(`${p}\n`);
    process.stderr.write('reload refused; the running policy keeps serving\n');
    return 1;
  }
  if (!json) process.stdout.write(`${renderReload(body, policy.file)}\n`);
  return 0;
};
