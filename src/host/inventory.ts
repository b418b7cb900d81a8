import { type HostOut, LINK } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import type { Surface } from '../guard/scanner.js';
import type { ServerConfig } from '../policy/model.js';
import type { UpstreamConn } from '../upstream/conn.js';
/** What the policy declared a server would be, against what it reports. Pure. */
export interface InventoryDrift {
  expectedVersion?: string;
  actualVersion?: string;
  missingTools: string[];
  extraTools: string[];
}

export const compareInventory = (
  expect: { version?: string; tools?: string[] } | undefined,
  actualVersion: string | undefined,
  toolNames: string[],
): InventoryDrift | undefined => {
  if (!expect) return undefined;
  const versionDrift = expect.version !== undefined && expect.version !== actualVersion;
  const have = new Set(toolNames);
  const want = new Set(expect.tools ?? []);
  const missingTools = expect.tools ? [...want].filter((t) => !have.has(t)).sort() : [];
  const extraTools = expect.tools ? [...have].filter((t) => !want.has(t)).sort() : [];
  if (!versionDrift && missingTools.length === 0 && extraTools.length === 0) return undefined;
  return {
    ...(expect.version !== undefined ? { expectedVersion: expect.version } : {}),
    ...(actualVersion !== undefined ? { actualVersion } : {}),
    missingTools,
    extraTools,
  };
};

/** One line an agent or operator can act on, in the spirit of "expected 1.4.2 per policy; run ...". */
export const describeDrift = (server: string, d: InventoryDrift): string => {
  const parts: string[] = [];
  if (d.expectedVersion !== undefined && d.expectedVersion !== d.actualVersion)
    parts.push(`expected version ${d.expectedVersion} per policy, server reports ${d.actualVersion ?? 'none'}`);
  if (d.missingTools.length > 0) parts.push(`missing tools: ${d.missingTools.join(', ')}`);
  if (d.extraTools.length > 0) parts.push(`undeclared tools: ${d.extraTools.join(', ')}`);
  return `inventory drift in "${server}": ${parts.join('; ')}`;
};

/**
 * Declared inventory, compared on every (re)start and list change: a mismatch is logged, reported
 * to the front (`lanegate/inventory`), and with `onDrift: withhold` the server is withheld until
 * the policy's `expect` matches again (a match lifts it).
 */
export const checkInventory = (
  cfg: ServerConfig,
  conn: UpstreamConn,
  surface: Surface,
  deps: { log: Log; notify: HostOut['notify']; withheld: Map<string, string> },
): void => {
  const version = typeof conn.init.serverInfo.version === 'string' ? conn.init.serverInfo.version : undefined;
  const drift = compareInventory(
    cfg.expect,
    version,
    (surface.tools ?? []).map((t) => String(t.name)),
  );
  if (!drift) {
    deps.withheld.delete(cfg.name);
    // A match (e.g. after the operator accepted a new inventory) clears what was reported.
    if (cfg.expect) deps.notify(LINK.inventory, { server: cfg.name, cleared: true });
    return;
  }
  const line = describeDrift(cfg.name, drift);
  deps.log.warn({ event: 'inventory_drift', server: cfg.name, drift, onDrift: cfg.onDrift }, line);
  deps.notify(LINK.inventory, { server: cfg.name, drift: { ...drift }, line, withheld: cfg.onDrift === 'withhold' });
  if (cfg.onDrift === 'withhold')
    deps.withheld.set(cfg.name, `withheld: ${line}; accept the new inventory by updating servers.${cfg.name}.expect in the policy`);
};
