/**
 * A/B against an older lanegate, in ONE run: `LANEGATE_AB_OLD=/path/to/old/checkout npm run
 * bench:ab` (the old checkout built, with its node_modules). Separate `npm run bench` runs drift
 * ±30 % between runs on these machines, more than the differences asked about (issue 19: "within
 * 5 % of today's"), so this bench starts both gateways and the floor bridge side by side, each
 * with server-everything, and measures them in alternating blocks: the rounds alternate their
 * order, and the figures are medians over rounds of each block's p50 (c=1) or calls/s (c>1),
 * the ratio to the floor taken within each round. Each gateway is started with its own test
 * helpers, as its own suite would start it.
 *
 * LANEGATE_AB_MODE: v1 (the SDK v1 client, a handshake-era session; default) or lean (2026-07-28
 * POSTs); LANEGATE_AB_C: concurrency (1); LANEGATE_AB_ROUNDS (15); LANEGATE_AB_BLOCK: calls a block (600);
 * LANEGATE_AB_BYTES: the echoed message's size (2, "hi"; 262144 is `npm run bench`'s 256 KiB row).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import path from 'node:path';
import { EVERYTHING, ROOT } from '../helpers/gateway.js';
import { floorBridge, leanCall, run } from './paths.js';

type Call = () => Promise<void>;
const env = process.env;
const OLD = env.LANEGATE_AB_OLD;
const MODE = env.LANEGATE_AB_MODE ?? 'v1';
const C = Number(env.LANEGATE_AB_C ?? 1);
const ROUNDS = Number(env.LANEGATE_AB_ROUNDS ?? 15);
const BLOCK = Number(env.LANEGATE_AB_BLOCK ?? 600);
const BYTES = Number(env.LANEGATE_AB_BYTES ?? 2);
const MESSAGE = BYTES === 2 ? 'hi' : 'x'.repeat(BYTES);
if (!OLD || (MODE !== 'v1' && MODE !== 'lean')) {
  process.stderr.write('usage: LANEGATE_AB_OLD=/path/to/old/lanegate [LANEGATE_AB_MODE=v1|lean] [LANEGATE_AB_C=1] npm run bench:ab\n');
  process.exit(2);
}
const stops: (() => Promise<unknown>)[] = [];

/** One client on `url`: the SDK v1 client's session, or lean 2026-07-28 POSTs after it. */
const caller = async (url: URL, headers: Record<string, string>, tool: string): Promise<Call> => {
  const client = new Client({ name: 'ab', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  stops.push(() => client.close());
  if (MODE === 'v1')
    return async () => {
      await client.callTool({ name: tool, arguments: { message: MESSAGE } });
    };
  if (BYTES !== 2) throw new Error('LANEGATE_AB_BYTES is for the v1 mode');
  return leanCall(url, headers, tool);
};

/** A gateway of `root`, started by that checkout's own test helpers, serving server-everything to lane bench. */
const gatewayOf = async (root: string): Promise<Call> => {
  const h = await import(path.join(root, 'test/helpers/gateway.ts'));
  const gw = await h.startGateway(
    `${h.policyHead('')}
trustDomains: { public: { kind: shared } }
servers:
  every: { prefix: every, domain: public, stdio: { command: node, args: ["${h.EVERYTHING}", "stdio"] } }
lanes:
  bench: { servers: [every] }
`,
    { env: { LANEGATE_LOG_LEVEL: 'warn' } },
  );
  stops.push(() => gw.stop());
  return caller(new URL(gw.url), { authorization: `Bearer ${await gw.token('bench')}` }, 'every_echo');
};

const floor = async (): Promise<Call> => {
  const bridge = await floorBridge([EVERYTHING, 'stdio']);
  stops.push(async () => bridge.stop());
  return caller(new URL(bridge.url), {}, 'echo');
};

/** One block: its p50 in ms at c=1, its calls/s above. */
const block = async (call: Call): Promise<number> => {
  const s = await run(call, BLOCK, C, 0);
  return C === 1 ? s.p50 : s.rps;
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

try {
  const paths: Record<'old' | 'new' | 'floor', Call> = { old: await gatewayOf(OLD), new: await gatewayOf(ROOT), floor: await floor() };
  const order = ['old', 'new', 'floor'] as const;
  for (const k of order) for (let i = 0; i < (BYTES === 2 ? 3000 : 200); i += 1) await paths[k]();
  const got: Record<(typeof order)[number], number[]> = { old: [], new: [], floor: [] };
  for (let r = 0; r < ROUNDS; r += 1) for (const k of r % 2 === 0 ? order : [...order].reverse()) got[k].push(await block(paths[k]));
  const unit = C === 1 ? 'p50 ms' : 'calls/s';
  const toFloor = (k: 'old' | 'new'): number => median(got[k].map((v, i) => v / (got.floor[i] ?? 1)));
  process.stdout.write(
    `\nA/B, ${MODE} c=${C}, ${BYTES} B echo: ${ROUNDS} rounds of ${BLOCK} calls each, alternating (medians over rounds)\n`,
  );
  process.stdout.write(`| path  | ${unit} | ratio to the floor |\n|---|---|---|\n`);
  for (const k of ['old', 'new'] as const) process.stdout.write(`| ${k}   | ${median(got[k]).toFixed(3)} | ${toFloor(k).toFixed(3)}x |\n`);
  process.stdout.write(`| floor | ${median(got.floor).toFixed(3)} | |\n`);
  process.stdout.write(
    `new/old (per round, median): ${median(got.new.map((v, i) => v / (got.old[i] ?? 1))).toFixed(3)}x ${C === 1 ? '(lower is better)' : '(higher is better)'}\n`,
  );
  process.stdout.write(`old: ${OLD}\nnew: ${ROOT}\n`);
} finally {
  for (const s of stops.reverse()) await s().catch(() => undefined);
}
process.exit(0);
