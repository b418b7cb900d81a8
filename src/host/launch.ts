import path from 'node:path';
import type { ServerConfig } from '../policy/model.js';
import type { StdioLaunch } from '../upstream/stdio-child.js';
import { ENV_ALLOWLIST } from '../link/config.js';
import { expandLane } from '../policy/placeholders.js';

/**
 * The exact launch of a stdio upstream: resolved command, args and env with {lane} expanded,
 * the allowlisted ambient environment, the domain's secrets, and a neutral working directory
 * of its own (per lane when dedicated). Pure: inputs in, launch out.
 */
export const stdioLaunchFor = (
  server: ServerConfig,
  lane: string | undefined,
  ambient: NodeJS.ProcessEnv,
  secrets: ReadonlyMap<string, string>,
  stateDir: string,
): StdioLaunch => {
  if (server.transport.kind !== 'stdio') throw new Error('not a stdio server');
  const t = server.transport;
  const env: Record<string, string> = {};
  for (const k of ENV_ALLOWLIST) {
    const v = ambient[k];
    if (v !== undefined) env[k] = v;
  }
  const cwd = path.join(stateDir, 'work', server.domain, server.name, ...(lane ? [lane] : []));
  env.HOME = cwd;
  for (const [k, v] of Object.entries(t.env)) env[k] = expandLane(v, lane);
  for (const [k, v] of secrets) env[k] = v;
  return { commandPath: t.commandPath, args: t.args.map((a) => expandLane(a, lane)), env, cwd };
};
