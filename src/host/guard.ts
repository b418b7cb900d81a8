import type { GuardReport } from '../link/reports.js';
import type { Log } from '../log/lite.js';
import { diffSurfaces, surfaceHash } from '../guard/hash.js';
import { formatRefusal, type Refusal } from '../guard/refusal.js';
import { capabilityVariant } from '../guard/profile.js';
import { type Finding, type GuardContext, scanSurface, type Surface, type VerdictMemo } from '../guard/scanner.js';

/** Enough for every item of a few large servers; past it the memo starts over. */
const MEMO_MAX = 50_000;
import { type TrustOverride, uncovered } from '../guard/trust.js';
import { type Drift, itemHashesOf, laneRefusal, type Seen, serverRefusal } from './guard-verdict.js';
import { readTrust, trustVersion } from '../records/trust-file.js';

interface ServerGuardState {
  status: 'admitted' | 'refused';
  pinned?: string;
  /** The capability profile of the child whose surface is pinned, when known. */
  profile?: string;
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
  /** Item verdicts already reached: a re-vet judges only items that changed (bounded: cleared when full). */
  private readonly memo: VerdictMemo = new Map();
  /**
   * Refusals of a surface shown by ONE lane's own child: that lane's alone. Such a surface may hold
   * what the lane put there itself (session resources named by it), so judging the server by it
   * would let one lane withdraw a server from every other lane and put its words in their context.
   */
  private readonly laneRefusals = new Map<string, Map<string, { refusal: Refusal; surface: Surface }>>();
  /** The last surface each capability profile of a server showed (server \0 profile): drift is within one profile. */
  private readonly profilePins = new Map<string, { hash: string; surface: Surface }>();
  private overrides: TrustOverride[] = [];
  private trustSeen = -1;
  private trustCheckedAt = 0;

  constructor(
    private readonly stateDir: string,
    pins: Record<string, { hash: string; surface: Surface; profile?: string }>,
    private readonly lanesOf: (server: string) => string[],
    private readonly report: (r: GuardReport) => void,
    private readonly log: Log,
  ) {
    for (const [server, p] of Object.entries(pins)) {
      this.state.set(server, { status: 'admitted', pinned: p.hash, surface: p.surface, ...(p.profile ? { profile: p.profile } : {}) });
      if (p.profile) this.profilePins.set(`${server}\u0000${p.profile}`, { hash: p.hash, surface: p.surface });
    }
  }

  /** The refusal that holds for this server, for every lane or (if given) for this lane's own child. */
  refusal(server: string, lane?: string): Refusal | undefined {
    const s = this.state.get(server);
    if (s?.status === 'refused') return s.refusal;
    return lane === undefined ? undefined : this.laneRefusals.get(server)?.get(lane)?.refusal;
  }

  /** Re-reads overrides if the operator changed them; re-vets known surfaces. Returns what changed (a lane: its own child's). */
  refreshTrust(): { server: string; lane?: string }[] {
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
    const changed: { server: string; lane?: string }[] = [];
    for (const [server, st] of this.state) {
      if (st.status !== 'refused' && !unreadable) continue;
      const before = st.status;
      if (this.vet(server, st.surface) !== before) changed.push({ server });
    }
    for (const [server, byLane] of this.laneRefusals)
      for (const [lane, r] of [...byLane]) if (this.vet(server, r.surface, lane) === 'admitted') changed.push({ server, lane });
    return changed;
  }

  /** A lane's own child's surface: refused for that lane only; admitted, it changes nothing of the server's. */
  private vetForLane(
    server: string,
    surface: Surface,
    lane: string,
    open: Finding[],
    report: Omit<GuardReport, 'status'>,
  ): 'admitted' | 'refused' {
    const byLane = this.laneRefusals.get(server) ?? new Map<string, { refusal: Refusal; surface: Surface }>();
    if (open.length === 0) {
      // Recorded (a clean change is drift), told to this lane only; the server's pin in this host stays.
      if (byLane.delete(lane) || report.drift) this.report({ ...report, status: 'admitted', pinnedHash: report.surfaceHash, lane });
      return 'admitted';
    }
    const first = open[0] as Finding;
    const refusal = laneRefusal(server, lane, open);
    byLane.set(lane, { refusal, surface });
    this.laneRefusals.set(server, byLane);
    this.log.error(
      {
        event: 'guard_refused',
        server,
        lane,
        layer: 'semantic',
        code: first.code,
        tool: refusal.tool,
        finding: refusal.finding,
        when: 'drift',
      },
      `\n${formatRefusal(refusal)}`,
    );
    this.report({ ...report, status: 'refused', findings: open, refusal, lane });
    return 'refused';
  }

  /**
   * The other servers this host holds that share a lane with this one, with their tool names: the
   * part of the lane's catalog a host can see (naming one of their tools is steering; a look-alike
   * of one is shadowing).
   */
  private catalogBeside(server: string): GuardContext {
    const mine = new Set(this.lanesOf(server));
    const others: GuardContext['others'] = [];
    for (const [name, st] of this.state) {
      if (name === server || !this.lanesOf(name).some((l) => mine.has(l))) continue;
      others.push({ server: name, tools: (st.surface.tools ?? []).map((t) => String(t.name ?? '')) });
    }
    return { others };
  }

  /**
   * Re-judges the admitted servers that share a lane with `server`, now that its tools are known:
   * one vetted before the server it names (or imitates) was judged without it. Returns the servers
   * whose verdict changed (now refused), for the host to tell their lanes. Never cascades.
   */
  revetBeside(server: string): string[] {
    const mine = new Set(this.lanesOf(server));
    const changed: string[] = [];
    for (const [name, st] of [...this.state]) {
      if (name === server || st.status !== 'admitted' || !this.lanesOf(name).some((l) => mine.has(l))) continue;
      if (this.vet(name, st.surface) === 'refused') changed.push(name);
    }
    return changed;
  }

  /** `lane`: the surface came from that lane's own child (see laneRefusals); `profile`: the capabilities its child was offered. */
  vet(server: string, surface: Surface, lane?: string, profile?: string): 'admitted' | 'refused' {
    if (this.trustSeen < 0) {
      this.trustCheckedAt = 0;
      this.refreshTrust();
    }
    const hash = surfaceHash(surface);
    if (this.memo.size > MEMO_MAX) this.memo.clear();
    const all = scanSurface(surface, this.memo, this.catalogBeside(server));
    const open = uncovered(server, surface, all, this.overrides);
    const prev = this.state.get(server);
    const v: Seen = {
      server,
      surface,
      hash,
      open,
      trusted: all.filter((f) => !open.includes(f)),
      itemHashes: itemHashesOf(surface, all),
      prev,
      drift: this.driftOf(server, surface, hash, prev, profile),
      profile,
    };
    // The first surface a host sees of a server (a fresh child, before any lane acted on it) is the
    // server's, pinned and judged for every lane; later ones from a lane's own child are that lane's.
    if (lane !== undefined && prev !== undefined) return this.vetForLane(server, surface, lane, open, this.laneReport(v));
    return open.length > 0 ? this.refuse(v) : this.admit(v);
  }

  /**
   * The change a surface is from the pin it is compared with: its capability profile's own last
   * surface, else the server's pin. Drift is a change within one capability profile; against
   * another profile's surface, tools that appear only for some client capabilities are not (every
   * surface is still scanned). Records the profile's surface.
   */
  private driftOf(server: string, surface: Surface, hash: string, prev: ServerGuardState | undefined, profile?: string): Drift | undefined {
    const pinned = prev?.pinned;
    const key = `${server}\u0000${profile ?? ''}`;
    const mine = profile !== undefined ? this.profilePins.get(key) : undefined;
    const base = mine ?? (pinned !== undefined && prev ? { hash: pinned, surface: prev.surface } : undefined);
    const changes = base && base.hash !== hash ? diffSurfaces(base.surface, surface) : undefined;
    const variant = changes !== undefined && !mine && profile !== undefined && prev?.profile !== profile && capabilityVariant(changes);
    if (profile !== undefined) this.profilePins.set(key, { hash, surface });
    if (variant)
      this.log.info(
        { event: 'guard_capability_variant', server, profile, tools: changes.map((c) => `${c.change} ${c.item}`) },
        `surface of "${server}" differs for clients offering ${profile || 'no capabilities'} (tools gated on a client capability); scanned clean, not drift`,
      );
    return base && changes && !variant ? { from: base.hash, to: hash, changes } : undefined;
  }

  /** What a lane's own child's surface is reported with (vetForLane adds its verdict). */
  private laneReport(v: Seen): Omit<GuardReport, 'status'> {
    const pinned = v.prev?.pinned;
    return {
      server: v.server,
      surfaceHash: v.hash,
      ...(pinned !== undefined ? { pinnedHash: pinned } : {}),
      surface: v.surface,
      findings: [],
      trusted: v.trusted,
      itemHashes: v.itemHashes,
      ...(v.drift ? { drift: v.drift } : {}),
      ...(v.profile !== undefined ? { profile: v.profile } : {}),
    };
  }

  /** A finding no override covers: the server is refused (or withdrawn) for every lane of this host at once. */
  private refuse(v: Seen): 'refused' {
    const { server, open, drift } = v;
    const first = open[0] as Finding;
    const pinned = v.prev?.pinned;
    const refusal = serverRefusal(server, this.lanesOf(server), open, drift !== undefined);
    this.state.set(server, { status: 'refused', ...(pinned !== undefined ? { pinned } : {}), surface: v.surface, refusal });
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
      surfaceHash: v.hash,
      ...(pinned ? { pinnedHash: pinned } : {}),
      surface: v.surface,
      findings: open,
      trusted: v.trusted,
      itemHashes: v.itemHashes,
      ...(drift ? { drift } : {}),
      refusal,
    });
    return 'refused';
  }

  /** Scanned clean: the surface is pinned (a change is drift, logged); reported when the verdict or the pin changed. */
  private admit(v: Seen): 'admitted' {
    const { server, hash, prev, drift, profile } = v;
    this.state.set(server, { status: 'admitted', pinned: hash, surface: v.surface, ...(profile !== undefined ? { profile } : {}) });
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
        surface: v.surface,
        findings: [],
        trusted: v.trusted,
        itemHashes: v.itemHashes,
        ...(drift ? { drift } : {}),
        ...(profile !== undefined ? { profile } : {}),
      });
    }
    return 'admitted';
  }
}
