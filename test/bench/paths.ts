/**
 * The bench's shared parts: the measuring loop, a keep-alive HTTP client, and the floor rows
 * (the same clients and upstream through the one-hop floor bridge and through lanegate).
 */
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EVERYTHING, policyHead, startGateway } from '../helpers/gateway.js';

// Three processes must be JIT-warm before we measure steady state (the first ~2k calls run several times slower).
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
/**
 * The gateway settings of the benched policies: LANEGATE_BENCH_AUDIT=off turns the audit trail off
 * (on by default, as in production), to measure what recording costs.
 */
export const benchGateway = (): string => (process.env.LANEGATE_BENCH_AUDIT === 'off' ? '  audit: { enabled: false }' : '');
export const N1 = Number(process.env.BENCH_N1 ?? 3000);
export const N16 = Number(process.env.BENCH_N16 ?? 12000);
/** The large-payload rows: a 256 KiB echo each way, fewer calls. */
const BIG = 256 * 1024;
const NBIG = Number(process.env.BENCH_NBIG ?? 300);
/** Calls of the 1 MB rows (the 8 MB rows make an eighth of them). */
const NLARGE = Number(process.env.BENCH_NLARGE ?? 80);

export type Call = () => Promise<void>;
export interface Stats {
  p50: number;
  p99: number;
  rps: number;
}

export const run = async (call: Call, n: number, concurrency: number, warmup = WARMUP): Promise<Stats> => {
  for (let i = 0; i < warmup; i += 1) await call();
  const lat: number[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next += 1;
        const s = process.hrtime.bigint();
        await call();
        lat.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((x, y) => x - y);
  return { p50: lat[Math.floor(lat.length * 0.5)] ?? 0, p99: lat[Math.floor(lat.length * 0.99)] ?? 0, rps: lat.length / secs };
};

export const agent = new Agent({ keepAlive: true, maxSockets: 64 });
/**
 * One POST on the shared keep-alive agent. A request sent on a pooled connection the server closed
 * as idle (node's http server closes one after 5 s) fails with "socket hang up" before any byte of
 * an answer: that request never reached the server, so it is sent again once, on a new connection
 * (node's documented `reusedSocket` case); `resent` counts them, for the run's last line. Two runs
 * of `npm run bench` had died of "socket hang up" ~34 s in. With a large body the same race ends
 * in EPIPE instead (the write after the server's close fails before any answer is read): one run
 * died of it in the 1 MB / 8 MB echo stage, where the floor's 2.5 s calls leave sockets idle.
 */
export const resent = { count: 0, codes: {} as Record<string, number> };
export const httpPost = (url: URL, body: string, headers: Record<string, string>, retried = false): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          data += c;
        });
        res.on('end', () => (res.statusCode === 200 ? resolve(data) : reject(new Error(`HTTP ${res.statusCode}: ${data}`))));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (!retried && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) {
        resent.count += 1;
        resent.codes[e.code] = (resent.codes[e.code] ?? 0) + 1;
        httpPost(url, body, headers, true).then(resolve, reject);
      } else reject(e);
    });
    req.end(body);
  });

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'b', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A lean 2026-07-28 `tools/call` of `tool` echoing "hi" (one POST, no session), checked. */
export const leanCall = (url: URL, headers: Record<string, string>, tool: string): Call => {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: tool, arguments: { message: 'hi' }, _meta: MODERN_META },
  });
  const h = { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': tool };
  return async () => {
    const r = await httpPost(url, body, h);
    if (!r.includes('hi')) throw new Error(`unexpected ${r.slice(0, 200)}`);
  };
};

/** The same client and upstream through one URL: SDK v1 legacy session, then lean modern POSTs. */
const pathsThrough = async (label: string, url: URL, headers: Record<string, string>, tool: string): Promise<[string, Stats, Stats][]> => {
  const client = new V1Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  const v1: Call = async () => {
    await client.callTool({ name: tool, arguments: { message: 'hi' } });
  };
  const out: [string, Stats, Stats][] = [[`${label} SDK v1 (legacy)`, await run(v1, N1, 1), await run(v1, N16, 16)]];
  const big = 'x'.repeat(BIG);
  const v1big: Call = async () => {
    await client.callTool({ name: tool, arguments: { message: big } });
  };
  out.push([`${label} SDK v1, 256 KiB`, await run(v1big, NBIG, 1, 50), await run(v1big, NBIG, 4, 0)]);
  await client.close();
  const modern = leanCall(url, headers, tool);
  const h = { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': tool };
  out.push([`${label} lean (2026-07-28)`, await run(modern, N1, 1), await run(modern, N16, 16)]);
  // Large answers (issue 19): a 1 MB and an 8 MB echo each way, c=1 and c=4 (c=2 for 8 MB).
  // Not 16 MB: server-everything's stdio transport (the SDK's) drops a line over 10 MiB and exits.
  for (const [name, size, n, c] of [
    ['1 MB', 1_000_000, NLARGE, 4],
    ['8 MB', 8_000_000, Math.max(4, Math.floor(NLARGE / 8)), 2],
  ] as const) {
    const payload = 'x'.repeat(size);
    const large = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: { message: payload }, _meta: MODERN_META },
    });
    const call: Call = async () => {
      const r = await httpPost(url, large, h);
      if (r.length < size) throw new Error(`short answer: ${r.slice(0, 200)}`);
    };
    out.push([`${label} lean, ${name} echo`, await run(call, n, 1, 3), await run(call, n, c, 0)]);
  }
  return out;
};

/** The in-repo floor bridge (node:http to ONE stdio child running `upstream`) on a free port. */
export const floorBridge = async (upstream: string[]): Promise<{ url: string; pid: number; stop: () => void }> => {
  const bridge = execa(
    process.execPath,
    [fileURLToPath(new URL('floor-bridge.mjs', import.meta.url)), '0', '--', process.execPath, ...upstream],
    {
      stdout: 'pipe',
      buffer: false,
      reject: false,
    },
  );
  const port = await new Promise<number>((resolve) =>
    bridge.stdout?.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(String(d));
      if (m) resolve(Number(m[1]));
    }),
  );
  return { url: `http://127.0.0.1:${port}/mcp`, pid: bridge.pid ?? 0, stop: () => void bridge.kill('SIGTERM') };
};

export const floorRows = async (): Promise<[string, Stats, Stats][]> => {
  const bridge = await floorBridge([EVERYTHING, 'stdio']);
  const rows: [string, Stats, Stats][] = [];
  try {
    // The modern path needs the child initialised: the SDK v1 path runs first and does it.
    rows.push(...(await pathsThrough('floor bridge', new URL(bridge.url), {}, 'echo')));
  } finally {
    bridge.stop();
  }
  const gw = await startGateway(
    `${policyHead(`  maxBodyBytes: 33554432\n${benchGateway()}`)}
trustDomains: { public: { kind: shared } }
servers:
  every: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
lanes:
  bench: { servers: [every] }
`,
    { env: { LANEGATE_LOG_LEVEL: 'warn' } },
  );
  try {
    const token = await gw.token('bench');
    rows.push(...(await pathsThrough('lanegate    ', new URL(gw.url), { authorization: `Bearer ${token}` }, 'every_echo')));
  } finally {
    await gw.stop();
  }
  return rows;
};
