import type { GuardReport } from '../link/reports.js';
import type { Log } from '../log/lite.js';
import { diffSurfaces, itemHash, surfaceHash } from '../guard/hash.js';
import { formatRefusal, type Refusal, semanticRemedy } from '../guard/refusal.js';
import { type Finding, scanSurface, type Surface } from '../guard/scanner.js';
import { hashOfItem, type TrustOverride, uncovered } from '../guard/trust.js';
import { readTrust, trustVersion } from '../records/trust-file.js';

interface ServerGuardState {
  status: 'admitted' | 'refused';
  pinned?: string;
  surface: Surface;
  refusal?: Refusal;
}

/**
 * Layer two inside a host: every surface an upstream shows is scanned before any lane sees it,
 * when first seen and whenever it changes. A finding not covered by a reviewed override refuses
 * the whole upstream for every lane of this host at once; a clean change is recorded as drift.
 */
export class HostGuard {
  private readonly state = new Map<string, ServerGuardState>();
  private overrides: TrustOverride[] = [];
  private trustSeen = -1;
  private trustCheckedAt = 0;

  constructor(
    private readonly stateDir: string,
    pins: Record<string, { hash: string; surface: Surface }>,
    private readonly lanesOf: (server: string) => string[],
    private readonly report: (r: GuardReport) => void,
    private readonly log: Log,
  ) {
    for (const [server, p] of Object.entries(pins)) this.state.set(server, { status: 'admitted', pinned: p.hash, surface: p.surface });
  }

  refusal(server: string): Refusal | undefined {
    const s = this.state.get(server);
    return s?.status === 'refused' ? s.refusal : undefined;
  }

  /** Re-reads overrides if the operator changed them; re-vets known surfaces. Returns servers whose status changed. */
  refreshTrust(): string[] {
    // The operator's overrides are re-read at most once a second: a stat per call is not free.
    const now = Date.now();
    if (now - this.trustCheckedAt < 1000) return [];
    this.trustCheckedAt = now;
    const v = trustVersion(this.stateDir);
    if (v === this.trustSeen) return [];
    this.trustSeen = v;
    let unreadable = false;
    try {
      this.overrides = readTrust(this.stateDir);
    } catch (e) {
      // Fail closed: no override holds while the file cannot be read; every surface is re-vetted.
      unreadable = true;
      this.overrides = [];
      this.log.error(
        { event: 'records_unreadable', file: 'trust.json', detail: e instanceof Error ? e.message : 'unreadable' },
        'trust overrides unreadable: none applied',
      );
    }
    const changed: string[] = [];
    for (const [server, st] of this.state) {
      if (st.status !== 'refused' && !unreadable) continue;
      const before = st.status;
      if (this.vet(server, st.surface) !== before) changed.push(server);
    }
    return changed;
  }

  vet(server: string, surface: Surface): 'admitted' | 'refused' {
    if (this.trustSeen < 0) {
      this.trustCheckedAt = 0;
      this.refreshTrust();
    }
    const hash = surfaceHash(surface);
    const all = scanSurface(surface);
    const open = uncovered(server, surface, all, this.overrides);
    const trusted = all.filter((f) => !open.includes(f));
    const prev = this.state.get(server);
    const pinned = prev?.pinned;
    const drift =
      pinned !== undefined && pinned !== hash && prev
        ? { from: pinned, to: hash, changes: diffSurfaces(prev.surface, surface) }
        : undefined;
    const itemHashes: Record<string, string> = {};
    for (const f of all) {
      const h = hashOfItem(surface, f.kind, f.item);
      if (h) itemHashes[`${f.kind}:${f.item}`] = h;
    }
    for (const t of surface.tools ?? []) itemHashes[`tool:${String(t.name)}`] = itemHash(t);

    if (open.length > 0) {
      const first = open[0] as Finding;
      const refusal: Refusal = {
        upstream: server,
        lanes: this.lanesOf(server),
        layer: 'semantic',
        tool: first.kind === 'tool' ? first.item : `${first.kind} ${first.item}`,
        finding: `${first.finding}${open.length > 1 ? ` (+${open.length - 1} more finding${open.length > 2 ? 's' : ''})` : ''}`,
        matched: first.matched,
        action: drift
          ? 'upstream withdrawn from every lane at once; lanes served without it'
          : 'upstream not registered; lanes served without it',
        remedy: semanticRemedy(server, first.item),
        when: drift ? 'drift' : 'admission',
      };
      this.state.set(server, { status: 'refused', ...(pinned !== undefined ? { pinned } : {}), surface, refusal });
      this.log.error(
        {
          event: 'guard_refused',
          server,
          layer: 'semantic',
          code: first.code,
          field: first.field,
          tool: refusal.tool,
          finding: refusal.finding,
          action: refusal.action,
          remedy: refusal.remedy,
          when: refusal.when,
        },
        `\n${formatRefusal(refusal)}`,
      );
      this.report({
        server,
        status: 'refused',
        surfaceHash: hash,
        ...(pinned ? { pinnedHash: pinned } : {}),
        surface,
        findings: open,
        trusted,
        itemHashes,
        ...(drift ? { drift } : {}),
        refusal,
      });
      return 'refused';
    }
    this.state.set(server, { status: 'admitted', pinned: hash, surface });
    if (drift) {
      this.log.warn(
        { event: 'guard_drift', server, from: drift.from.slice(0, 12), to: hash.slice(0, 12), changes: drift.changes },
        `surface of "${server}" changed; re-scanned clean, pinned the new surface`,
      );
    }
    if (!prev || prev.pinned !== hash || prev.status !== 'admitted') {
      this.report({
        server,
        status: 'admitted',
        surfaceHash: hash,
        pinnedHash: hash,
        surface,
        findings: [],
        trusted,
        itemHashes,
        ...(drift ? { drift } : {}),
      });
    }
    return 'admitted';
  }
}
