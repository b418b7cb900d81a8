import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { StdioLaunch } from '../upstream/stdio-child.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import type { ServerConfig } from '../policy/model.js';

/**
 * A comparison process (a measurement's runs, a spot check's fresh processes, a tripwire replay)
 * stands in for the shared child, so it is launched exactly as the shared child is: the same
 * command, args, environment (the policy's, the allowlisted ambient one, the domain's secrets)
 * and the same HOME policy. One thing cannot be the same: its directory. A comparison process
 * that ran in the shared child's directory would read the files the shared child's lanes left
 * there (a cross-lane channel that exists only because of sharing: a dedicated child has a
 * directory per lane), and a fresh process that reads them is no witness. So it runs in a shadow
 * of the state directory, `<stateDir>/scratch/<tag>/…`, at the same relative place
 * (`…/work/<domain>/<server>`, the same last components), and its answers are read as if it ran
 * where the shared child runs: the shadow's path, as given and as resolved, is replaced by the
 * shared child's in every string and key of an answer. Without that, every answer that reveals
 * the process's own launch (server-everything's get-env shows HOME) differed from the shared
 * child's on an honest server, and the first spot check retreated it for good.
 *
 * What stays different and is not mapped: a directory named in another form (hashed, split into
 * parts, counted) and the directory's identity (inode, times). Pure except `seenAsShared`'s
 * wrapping of a connection.
 */

/** Launches a comparison process for a server (a tag names its shadow directory; a spot check passes the shared child's era). */
export type ComparisonLauncher = (
  server: ServerConfig,
  tag: string,
  clientInfo?: { name: string; version: string },
  era?: Era,
) => Promise<UpstreamConn>;

/** Where a comparison process with this tag runs: the shared child's directory, shadowed under scratch/<tag>. */
export const shadowDir = (stateDir: string, sharedCwd: string, tag: string): string => {
  const rel = path.relative(stateDir, sharedCwd);
  const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  return path.join(stateDir, 'scratch', tag, inside ? rel : path.basename(sharedCwd));
};

/** `v` with the directory `from` (itself or a path under it) moved to `to`; anything else unchanged. */
const moved = (v: string, from: string, to: string): string =>
  v === from ? to : v.startsWith(`${from}${path.sep}`) ? `${to}${v.slice(from.length)}` : v;

/**
 * The shared child's launch, for a comparison process in `dir`: every env value and argument that
 * names the shared child's directory (HOME by default) names `dir` instead; nothing else changes,
 * so a HOME the policy set itself is kept as the shared child has it.
 */
export const comparisonLaunch = (shared: StdioLaunch, dir: string): StdioLaunch => ({
  commandPath: shared.commandPath,
  args: shared.args.map((a) => moved(a, shared.cwd, dir)),
  env: Object.fromEntries(Object.entries(shared.env).map(([k, v]) => [k, moved(v, shared.cwd, dir)])),
  cwd: dir,
});

/** A path pair: the comparison process's directory and the shared child's, as given or as resolved. */
export type DirPair = readonly [from: string, to: string];

/**
 * The pairs to map a comparison process's answers with: its directory as given (HOME, argv) and as
 * the kernel resolves it (process.cwd()), each to the shared child's in the same form. The state
 * directory is the only part that may be a link; both directories are made by lanegate below it.
 */
export const dirPairs = (stateDir: string, dir: string, sharedCwd: string): DirPair[] => {
  const pairs: DirPair[] = [[dir, sharedCwd]];
  let real: string;
  try {
    real = realpathSync(stateDir);
  } catch {
    return pairs;
  }
  if (real !== stateDir) pairs.push([path.join(real, path.relative(stateDir, dir)), path.join(real, path.relative(stateDir, sharedCwd))]);
  return pairs;
};

const mapString = (s: string, pairs: readonly DirPair[]): string => {
  let out = s;
  for (const [from, to] of pairs) if (from !== to && out.includes(from)) out = out.split(from).join(to);
  return out;
};

/** An answer as the shared child would have written it: each pair's first path replaced by its second, in strings and keys. Pure. */
export const asShared = (v: unknown, pairs: readonly DirPair[]): unknown => {
  if (typeof v === 'string') return mapString(v, pairs);
  if (Array.isArray(v)) return v.map((x) => asShared(x, pairs));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [mapString(k, pairs), asShared(x, pairs)]));
  return v;
};

/** The connection, its answers read as the shared child's (the directory mapped back). */
export const seenAsShared = (conn: UpstreamConn, pairs: readonly DirPair[]): UpstreamConn => ({
  pid: conn.pid,
  init: conn.init,
  ...(conn.modern !== undefined ? { modern: conn.modern } : {}),
  request: async (method, params, timeoutMs, signal) =>
    asShared(await conn.request(method, params, timeoutMs, signal), pairs) as Record<string, unknown>,
  notify: (method, params) => conn.notify(method, params),
  stop: () => conn.stop(),
});
