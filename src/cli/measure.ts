import { operatorApi } from './operator-api.js';
import type { Policy } from '../policy/model.js';

interface Progress {
  running: boolean;
  done: number;
  measured: number;
  total: number;
}

const bar = (p: Progress): string => {
  const width = 30;
  const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} attempted`;
};

/** `lanegate measure`: starts an uncapped pass on the running gateway and shows its progress. */
export const runMeasure = async (policy: Policy, url: string | undefined, json = false): Promise<number> => {
  const api = operatorApi(policy, url);
  if (!api) return 2;
  const { base, headers } = api;
  let res: Response;
  try {
    res = await fetch(`${base}/api/measure`, { method: 'POST', headers });
  } catch {
    process.stderr.write(`the gateway is not reachable at ${base}; start it with lanegate serve\n`);
    return 1;
  }
  if (!res.ok) {
    process.stderr.write(`the gateway refused: HTTP ${res.status}\n`);
    return 1;
  }
  let p = (await res.json()) as Progress;
  // The bar is for a person at a terminal; --json prints the final progress alone.
  const tty = process.stderr.isTTY && !json;
  for (let i = 0; i < 3600 && p.running; i += 1) {
    if (!json) process.stderr.write(tty ? `\r${bar(p)}` : `${bar(p)}\n`);
    await new Promise((r) => setTimeout(r, 500));
    p = (await (await fetch(`${base}/api/measure`, { headers })).json()) as Progress;
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(p, null, 2)}\n`);
    return 0;
  }
  process.stderr.write(`${tty ? '\r' : ''}${bar(p)}\n`);
  // Silent but never false: with nothing measured, no closing claim is made.
  if (p.measured > 0)
    process.stdout.write(
      `measured ${p.measured} of ${p.total} server(s); placements change when their host next starts. See: npx lanegate review\n`,
    );
  else process.stdout.write(`no server was measured (of ${p.total}); npx lanegate review says why each shares or not\n`);
  return 0;
};
