import { LINK } from '../../link/protocol.js';
import { keyRetirements, loadPublicKeys } from '../../auth/keys.js';
import { loadPolicyIsolated } from '../../policy/load-isolated.js';
import { formatProblem } from '../../policy/problem.js';
import type { ReloadParts, ReloadResult } from '../front-parts.js';

export type { ReloadResult } from '../front-parts.js';

/**
 * Hot reload (SIGHUP, `lanegate reload`): re-reads the policy; an invalid one is refused with
 * its problems and the old one keeps serving. Removed or disabled lanes are cut off at once;
 * hosts adopt new loadouts and servers in place, so unaffected lanes' children keep running.
 */
export const reloadGateway = async (gw: ReloadParts): Promise<ReloadResult> => {
  const r = await loadPolicyIsolated(gw.policy.file);
  if (!r.policy) {
    const problems = r.problems.map(formatProblem);
    gw.log.error({ event: 'reload_refused', problems }, `reload refused: ${problems.length} problem(s); the running policy keeps serving`);
    gw.metrics.reloads.inc({ outcome: 'refused' });
    return { ok: false, problems, changes: {} };
  }
  const old = gw.policy;
  const next = r.policy;
  if (
    next.gateway.host !== old.gateway.host ||
    next.gateway.stateDir !== old.gateway.stateDir ||
    (!gw.portOverridden && next.gateway.port !== old.gateway.port)
  ) {
    const problems = ['gateway.listen and gateway.stateDir cannot change under a running gateway; restart it'];
    gw.log.error({ event: 'reload_refused', problems }, problems[0]);
    gw.metrics.reloads.inc({ outcome: 'refused' });
    return { ok: false, problems, changes: {} };
  }
  gw.adoptPolicy(next);
  gw.auth.onPolicy(next);
  // Keys too: a rotation's new public key is accepted, a retired one refused after its date.
  gw.auth.setKeys(await loadPublicKeys(next.gateway.stateDir), keyRetirements(next.gateway.stateDir));
  gw.evidence.onPolicy(next);
  // Revocation reaches what is open: sessions and streams opened with a token that is no longer
  // admitted (revoked id, lane removed or disabled, before the lane's cut-off) end now.
  const cut = gw.sessions.endRevoked((cl) => gw.auth.stillAdmitted(cl));
  // A removed or disabled lane's calls end with it, its 2026-07-28 ones (no session) and parked ones included.
  for (const lane of Object.keys(old.lanes)) if (!next.lanes[lane]?.enabled) gw.calls.cancel({ of: 'lane', lane });
  const changes: Record<string, unknown> = { sessionsEnded: cut, hosts: {} as Record<string, unknown> };
  for (const key of gw.hosts.running()) {
    const was = gw.hosts.configOf(key);
    const cfg = gw.hostConfig(key);
    if (!cfg) {
      await gw.hosts.stop(key);
      (changes.hosts as Record<string, unknown>)[key] = 'stopped';
      continue;
    }
    if (JSON.stringify(was?.secrets) !== JSON.stringify(cfg.secrets)) {
      await gw.hosts.stop(key);
      (changes.hosts as Record<string, unknown>)[key] = 'restarted (secrets changed)';
      continue;
    }
    try {
      (changes.hosts as Record<string, unknown>)[key] = await gw.hosts.request(
        key,
        LINK.configure,
        { config: cfg as unknown as Record<string, unknown> },
        30_000,
      );
      gw.hosts.setConfig(key, cfg);
    } catch {
      await gw.hosts.stop(key);
      (changes.hosts as Record<string, unknown>)[key] = 'restarted (could not reconfigure)';
    }
  }
  await Promise.all(gw.sharedHostKeys().map((k) => gw.hosts.start(k).catch(() => undefined)));
  gw.catalog.clear();
  for (const lane of Object.keys(next.lanes)) gw.sessions.notifyLane(lane, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  gw.metrics.reloads.inc({ outcome: 'applied' });
  gw.log.info({ event: 'reloaded', changes }, 'policy reloaded');
  return { ok: true, problems: [], changes };
};
