import { operatorApi } from './operator-api.js';
import type { Policy } from '../policy/model.js';

/** `lanegate reload`: asks the running gateway to re-read its policy; prints what changed or why not. */
export const runReload = async (policy: Policy, url: string | undefined): Promise<number> => {
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
  const body = (await res.json()) as { ok: boolean; problems: string[]; changes: unknown };
  if (!body.ok) {
    for (const p of body.problems) process.stderr.write(`${p}\n`);
    process.stderr.write('reload refused; the running policy keeps serving\n');
    return 1;
  }
  process.stdout.write(`reloaded: ${JSON.stringify(body.changes)}\n`);
  return 0;
};
