import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import { isLanegateError } from '../errors.js';
import { stdioLaunchFor } from '../host/launch.js';
import type { Policy, ServerConfig } from '../policy/model.js';
import { lanesOfDomain } from '../policy/queries.js';
import { SHARED_CLIENT_CAPABILITIES, type UpstreamConn } from '../upstream/conn.js';
import { connectHttp } from '../upstream/http-client.js';
import { launchStdio } from '../upstream/stdio-child.js';

const LIST_TIMEOUT_MS = 15_000;

/** How many items one list method returns (first page), or undefined when the server has none. */
const count = async (conn: UpstreamConn, method: string, key: string, cap: string): Promise<number | undefined> => {
  if (!(cap in conn.init.capabilities)) return undefined;
  const r = await conn.request(method, {}, LIST_TIMEOUT_MS);
  return Array.isArray(r[key]) ? r[key].length : 0;
};

const connect = (s: ServerConfig, lane: string | undefined, scratch: string): Promise<UpstreamConn> => {
  const ev = {
    onNotification: () => undefined,
    onServerRequest: async () => {
      throw new RpcFailure({ code: ERR.methodNotFound, message: 'not available during lanegate check --launch' });
    },
    onExit: () => undefined,
  };
  if (s.transport.kind === 'http') return connectHttp(s, lane, new Map(), ev);
  const l = stdioLaunchFor(s, lane, process.env, new Map(), scratch);
  return launchStdio(l, ev, {
    era: s.upstreamEra === 'modern' ? 'modern' : 'legacy',
    fallback: s.upstreamEra === 'auto',
    capabilities: SHARED_CLIENT_CAPABILITIES,
    initTimeoutMs: LIST_TIMEOUT_MS,
  });
};

/**
 * `lanegate check --launch`: starts each enabled server once, as a host would (the allowlisted
 * command, its args and env, a scratch working directory of its own), initializes it, lists its
 * surface and stops it. A server whose trust domain holds secrets is not started here: only a
 * host reads a secret. Returns how many failed.
 */
export const checkLaunch = async (policy: Policy, out: NodeJS.WritableStream = process.stdout): Promise<number> => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'lanegate-check-'));
  let failed = 0;
  try {
    for (const s of Object.values(policy.servers)) {
      const name = s.name.padEnd(16);
      if (!s.enabled) {
        out.write(`  skip  ${name} disabled in the policy\n`);
        continue;
      }
      if ((policy.domains[s.domain]?.secrets.length ?? 0) > 0) {
        out.write(`  skip  ${name} trust domain "${s.domain}" holds secrets, which only a host reads: lanegate serve starts it\n`);
        continue;
      }
      const lane = s.perLaneLaunch ? lanesOfDomain(policy, s.domain).find((l) => policy.lanes[l]?.servers.includes(s.name)) : undefined;
      let conn: UpstreamConn | undefined;
      try {
        conn = await connect(s, lane, scratch);
        const [tools, prompts, resources] = [
          await count(conn, 'tools/list', 'tools', 'tools'),
          await count(conn, 'prompts/list', 'prompts', 'prompts'),
          await count(conn, 'resources/list', 'resources', 'resources'),
        ];
        const info = conn.init.serverInfo as { name?: unknown; version?: unknown };
        const surface = [
          tools !== undefined ? `${tools} tools` : undefined,
          prompts !== undefined ? `${prompts} prompts` : undefined,
          resources !== undefined ? `${resources} resources` : undefined,
        ].filter(Boolean);
        out.write(
          `  ok    ${name} ${conn.pid !== undefined ? `pid ${conn.pid}, ` : ''}${surface.join(', ') || 'no tools, prompts or resources'} (${String(info.name ?? '?')} ${String(info.version ?? '')}`.trimEnd() +
            `, protocol ${conn.init.protocolVersion})\n`,
        );
      } catch (e) {
        failed += 1;
        out.write(`  FAIL  ${name} ${isLanegateError(e) ? e.detail : e instanceof Error ? e.message : String(e)}\n`);
      } finally {
        await conn?.stop();
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return failed;
};
