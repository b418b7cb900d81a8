import type { Logger } from 'pino';
import { formatRefusal } from '../../guard/refusal.js';
import type { GuardFile } from '../../records/guard-file.js';
import type { LaneVerdict } from '../mcp/catalog-guard.js';
import type { GuardWriter } from './guard-writer.js';

const sameFindings = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * One lane's verdict from its whole catalog, kept in records/guard.json beside the hosts' (review
 * and inspect show both): a server newly withheld from the lane is logged as the host logs a
 * refusal and written at once; one no longer withheld is dropped. Returns the servers whose
 * verdict for the lane changed.
 */
export const recordCatalogVerdict = (guard: GuardFile, lane: string, verdict: LaneVerdict, writer: GuardWriter, log: Logger): string[] => {
  const changed: string[] = [];
  const catalog = guard.catalog ?? {};
  for (const [server, byLane] of Object.entries(catalog)) {
    if (!byLane[lane] || verdict.has(server)) continue;
    delete byLane[lane];
    if (Object.keys(byLane).length === 0) delete catalog[server];
    changed.push(server);
    log.info(
      { event: 'guard_catalog_cleared', server, lane },
      `upstream "${server}" no longer withheld from lane "${lane}" by its catalog`,
    );
  }
  const now = new Date().toISOString();
  for (const [server, w] of verdict) {
    const byLane = catalog[server] ?? {};
    if (byLane[lane] && sameFindings(byLane[lane].findings, w.findings)) continue;
    byLane[lane] = { findings: w.findings, refusal: w.refusal, seenAt: now };
    catalog[server] = byLane;
    changed.push(server);
    const first = w.findings[0];
    log.error(
      {
        event: 'guard_refused',
        server,
        lane,
        layer: 'semantic',
        code: first?.code,
        field: first?.field,
        tool: w.refusal.tool,
        finding: w.refusal.finding,
        action: w.refusal.action,
        remedy: w.refusal.remedy,
        when: w.refusal.when,
      },
      `\n${formatRefusal(w.refusal)}`,
    );
  }
  if (changed.length > 0) {
    if (Object.keys(catalog).length > 0) guard.catalog = catalog;
    else delete guard.catalog;
    writer.changed(true);
  }
  return changed;
};
