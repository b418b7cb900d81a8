import { dispatchHostNote, type HostNoteHandlers, LINK, META } from '../link/protocol.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CryptoKey } from 'jose';
import type { Logger } from 'pino';
import type { HostConfig } from '../link/config.js';
import type { ListMethod } from '../link/lists.js';
import type { Policy } from '../policy/model.js';
import { ERR, RpcFailure, type RpcNotification } from '../rpc/jsonrpc.js';
import type { RawResult } from '../rpc/raw.js';
import type { JsonText } from '../rpc/json-text.js';
import { lanesOfHost, parseHostKey } from '../routing/route.js';
import type { Placement } from '../shareability/placement.js';
import { Evidence } from './operator/evidence.js';
import { Evaluator } from './operator/evaluator.js';
import { type ReloadResult, reloadGateway } from './operator/reload.js';
import { buildApp } from './app.js';
import { LaneAuth } from './transport/auth.js';
import { Catalog, lanesAffected } from './mcp/catalog.js';
import { hostConfigFor } from './hosts/host-config.js';
import { type HostLauncher, HostManager } from './hosts/hosts.js';
import { Metrics } from './operator/metrics.js';
import { Sessions } from './mcp/sessions.js';
import { CallStreams } from './transport/call-streams.js';
import { ClientRequests } from './mcp/client-requests.js';
import { ClientTaskPins, relayToClient } from './mcp/client-tasks.js';
import { Mrtr } from './mcp/mrtr.js';
import { type GuardFile, readGuard } from '../records/guard-file.js';
import { logRecordProblems, recordEscalation, recordGuardReport, recordHazard } from './operator/record-events.js';
import { GuardWriter } from './operator/guard-writer.js';
import type { GuardReport } from '../link/reports.js';
import { readTrust, trustReader } from '../records/trust-file.js';
import { CatalogGuard } from './mcp/catalog-guard.js';
import { recordCatalogVerdict } from './operator/record-catalog.js';
import { UpstreamHealth } from './operator/upstream-health.js';
import { Escalations } from './operator/escalations.js';
import { LaneLoad } from './transport/lane-load.js';
import { SendBudget } from './transport/send-budget.js';
import { BYTE_TURN_MIN, ByteTurns } from './transport/byte-turns.js';
import { FairShare } from './transport/fair-share.js';
import type { ReviewRow } from '../shareability/review.js';
import { liveReview } from './operator/live-review.js';
import { LivePlacement } from './operator/live-placement.js';
import { CHECK_EVERY_MS, managePool } from './transport/connection-pool.js';
import { AuditWriter, auditDir } from '../audit/writer.js';

const LIST_OF: Record<string, ListMethod[]> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

export interface GatewayOptions {
  policy: Policy;
  publicKeys: ReadonlyMap<string, CryptoKey>;
  operatorHash: Buffer;
  log: Logger;
  /** Override the policy's port (0 = any free port); used by tests and benchmarks. */
  port?: number;
  /** How hosts start (default: a host process each, dist/host/entry.js; tests run them in process). */
  launchHost?: HostLauncher;
}

/**
 * The front: the only process lanes talk to. It holds public keys and policy, never an
 * upstream secret; it routes each lane's requests to the hosts that serve them.
 */
export class Gateway {
  policy: Policy;
  readonly log: Logger;
  readonly hosts: HostManager;
  readonly catalog: Catalog;
  readonly sessions = new Sessions(() => this.policy.gateway.limits.sessionsPerLane);
  readonly streams = new CallStreams();
  readonly clientRequests = new ClientRequests();
  readonly pins = new ClientTaskPins();
  readonly mrtr = new Mrtr();
  /** Calls in flight, by lane, session and JSON-RPC id: what a lane's notifications/cancelled aborts. */
  readonly inflight = new Map<string, AbortController>();
  readonly metrics = new Metrics();
  /** What each lane has open right now, against gateway.limits. */
  readonly load = new LaneLoad(() => this.policy.gateway.limits);
  /** Calls in flight shared fairly among active lanes (see fair-share.ts). */
  readonly fair = new FairShare(() => {
    const l = this.policy.gateway.limits;
    return { perLane: l.callsPerLane, budget: l.sharedCalls, minShare: 4, activeMs: 250 };
  });
  /** Answer bytes held for clients that have not taken them yet, per lane and in all. */
  readonly send = new SendBudget(() => {
    const l = this.policy.gateway.limits;
    return { perConnection: l.unsentBytesPerConnection, perLane: l.unsentBytesPerLane, total: l.unsentBytes };
  });
  /** Large request bodies of each lane in flight, by bytes. */
  /** A lane's share of gateway.limits.bytesInFlightPerLane: while several lanes are active, each gets its part. */
  private readonly byteShare = (): number =>
    Math.max(BYTE_TURN_MIN, Math.floor(this.policy.gateway.limits.bytesInFlightPerLane / Math.max(1, this.fair.activeLanes())));
  readonly requestBytes = new ByteTurns(this.byteShare);
  /** Requests weighed by the answers their lane has been getting (their own queue: never behind their own body). */
  readonly answerBytes = new ByteTurns(this.byteShare);
  /** When each lane last made a call (for the connected-lanes gauge and the dashboard). */
  readonly lastSeen = new Map<string, number>();
  readonly auth: LaneAuth;
  private server?: Server;
  port = 0;
  /** Guard records (records/guard.json): the front is their single writer. */
  guard: GuardFile;
  private readonly guardWriter: GuardWriter;
  readonly evidence: Evidence;
  /** Declared-inventory drift per server, as the hosts last reported it. */
  readonly inventory: Record<string, { line: string; withheld: boolean; at: string }> = {};
  readonly evaluator: Evaluator;
  /** Lanes moved off shared children by requests outside the demonstrated scope (until their host restarts). */
  readonly escalations = new Escalations();
  /** The audit trail (audit/audit.jsonl): the front is its single writer. */
  readonly audit: AuditWriter;
  /** Servers whose last start failed or that crashed, with the child's own words (status shows them). */
  readonly upstreamHealth = new UpstreamHealth();
  /** Placements taken live by running hosts (promotions, retreats, lanes moved onto shared children). */
  readonly live: LivePlacement;

  /** The listen port came from the command line, not the policy (a reload may not change the policy's). */
  get portOverridden(): boolean {
    return this.o.port !== undefined;
  }

  constructor(private readonly o: GatewayOptions) {
    this.policy = o.policy;
    this.log = o.log;
    // Records fail closed. An unreadable guard or trust file stops the start (records_corrupt):
    // admission pins and operators' overrides are security decisions that must not vanish.
    this.guard = readGuard(o.policy.gateway.stateDir, true);
    this.guardWriter = new GuardWriter(this.guard, o.policy.gateway.stateDir, o.log);
    readTrust(o.policy.gateway.stateDir, true);
    this.audit = new AuditWriter(auditDir(o.policy.gateway.stateDir), () => this.policy.gateway.audit, o.log);
    this.evidence = new Evidence(o.policy);
    logRecordProblems(this.evidence.problems, o.log);
    this.auth = new LaneAuth(o.publicKeys, () => this.policy, o.policy.gateway.issuer, o.policy.gateway.audience);
    this.hosts = new HostManager(
      (key) => this.hostConfig(key),
      {
        onNotification: (key, n) => this.onHostNotification(key, n),
        onHostExit: (key) => this.onHostExit(key),
        onRequest: (key, method, params) => this.onHostRequest(key, method, params),
      },
      o.log,
      o.launchHost,
    );
    this.catalog = new Catalog(
      () => this.policy,
      (key, method, params, timeout) => this.hostRequestRaw(key, method, params, timeout),
      new CatalogGuard(
        () => this.policy,
        trustReader(() => this.policy.gateway.stateDir),
      ),
      (lane, verdict) => recordCatalogVerdict(this.guard, lane, verdict, this.guardWriter, this.log),
    );
    this.evaluator = new Evaluator(
      () => this.policy,
      this.evidence,
      (key, method, params, timeout) => this.hosts.request(key, method, params, timeout),
      o.log,
      (kind) => {
        this.metrics.passes.inc({ kind });
        // Sharing a pass earned takes effect now, in the running hosts (no restart).
        void this.live.apply(`${kind} measure pass`);
      },
    );
    this.live = new LivePlacement(this);
  }

  hostRequestRaw(
    key: string,
    method: string,
    params: Record<string, unknown> | JsonText,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<RawResult> {
    this.metrics.hostRequests.inc({ method });
    return this.hosts.requestRaw(key, method, params, timeoutMs, signal);
  }

  /** Placement of every server from the evidence: given to a host when it starts, and live after a pass (live-placement.ts). */
  placements(): Record<string, Placement> {
    return this.evidence.placements(this.guard);
  }

  hostConfig(key: string): HostConfig | undefined {
    const { domain, lane } = parseHostKey(key);
    const d = this.policy.domains[domain];
    if (!d || d.perLane !== (lane !== undefined)) return undefined;
    if (lane !== undefined && !this.policy.lanes[lane]?.enabled) return undefined;
    const cfg = hostConfigFor(this.policy, key, domain, lane, this.placements(), this.guard, this.evidence.scopes());
    this.log.info({ event: 'host_placements', host: key, placements: cfg.placements, scopes: cfg.scopes }, 'placements decided');
    return cfg;
  }

  private onGuardReport(key: string, r: GuardReport): void {
    // Recorded either way (review and inspect show it); a judgment of one lane's own child is news to that lane only.
    recordGuardReport(this.guard, r, this.guardWriter);
    this.metrics.guard.inc({ server: r.server, status: r.status });
    const lanes = r.lane !== undefined ? [r.lane] : lanesAffected(this.policy, key, r.server, 'all');
    this.catalog.invalidate(lanes);
    for (const lane of lanes) this.sessions.notifyLane(lane, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }

  /** A host relays an upstream's request to a lane's client: on the lane's call stream (legacy era) or its GET stream. */
  private onHostRequest(key: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const lane = String(params.lane ?? '');
    const hostLane = parseHostKey(key).lane;
    if (method !== LINK.clientRequest || !this.policy.lanes[lane] || (hostLane !== undefined && hostLane !== lane)) {
      return Promise.reject(new RpcFailure({ code: ERR.invalidParams, message: 'refused' }));
    }
    const inner = String(params.method ?? '');
    // Client-side tasks are pinned to a session per host and server (client-tasks.ts).
    const origin = `${key}\u0000${String(params.server ?? '')}`;
    const holder = typeof params.holder === 'string' ? params.holder : undefined;
    return relayToClient(this, origin, lane, inner, (params.params ?? {}) as Record<string, unknown>, holder);
  }

  private onHazard(key: string, server: string, code: string): void {
    if (recordHazard(this.evidence, server, code, key, this.log)) this.metrics.hazards.inc({ server, code });
    // The host has retreated already; its recorded configuration follows, so status says what runs.
    void this.live.apply('hazard');
  }

  /** One handler per link notification (src/link/protocol.ts), each given typed params. */
  private readonly hostNotes: HostNoteHandlers = {
    [LINK.guard]: (key, r) => this.onGuardReport(key, r),
    [LINK.notify]: (_key, p) => {
      if (!p.lane || !p.method) return;
      const msg = { jsonrpc: '2.0', method: p.method, params: p.params ?? {} };
      // To the call it belongs to; a log line with no call open goes to the lane's GET streams.
      if (!this.streams.deliver(p.lane, p.token, msg) && p.token === undefined) this.sessions.notifyLane(p.lane, msg);
    },
    [LINK.laneEvent]: (_key, p) => {
      if (!p.lane || !p.method || !Array.isArray(p.holders)) return;
      this.sessions.deliverToHolders(p.lane, p.holders.map(String), { jsonrpc: '2.0', method: p.method, params: p.params ?? {} });
    },
    [LINK.escalated]: (key, p) => recordEscalation(this, key, p),
    [LINK.placed]: (key, p) => this.live.record(key, p),
    [LINK.hazard]: (key, p) => this.onHazard(key, String(p.server ?? ''), String(p.code ?? '')),
    [LINK.inventory]: (_key, p) => {
      if (p.server && p.cleared === true) delete this.inventory[p.server];
      else if (p.server && p.line) {
        this.inventory[p.server] = { line: p.line, withheld: p.withheld === true, at: new Date().toISOString() };
        this.metrics.drift.inc({ server: p.server });
      }
    },
    [LINK.secret]: (_key, p) => {
      for (const rule of p.rules ?? []) this.metrics.secrets.inc({ server: p.server, direction: p.direction, rule, action: p.action });
    },
    [LINK.upstream]: (_key, p) => {
      this.upstreamHealth.note(p);
      if (p.kind === 'started' && p.server && p.version) this.evidence.noteVersion(p.server, p.version);
      if (p.kind === 'crashed' && p.server) this.metrics.restarts.inc({ kind: 'upstream', server: p.server });
    },
  };

  private onHostNotification(key: string, n: RpcNotification): void {
    if (dispatchHostNote(key, n.method, n.params, this.hostNotes)) return;
    const methods = LIST_OF[n.method];
    if (!methods) return;
    const meta = (n.params?._meta ?? {}) as { [META.server]?: string; [META.lanes]?: string[] | 'all' };
    const lanes = lanesAffected(this.policy, key, meta[META.server] ?? '', meta[META.lanes] ?? 'all');
    for (const m of methods) this.catalog.invalidate(lanes, m);
    for (const lane of lanes) this.sessions.notifyLane(lane, { jsonrpc: '2.0', method: n.method });
  }

  private onHostExit(key: string): void {
    this.metrics.restarts.inc({ kind: 'host', server: key });
    this.escalations.forgetHost(key);
    this.live.forgetHost(key);
    const lanes = lanesOfHost(this.policy, key);
    this.catalog.invalidate(lanes);
    for (const lane of lanes) this.sessions.notifyLane(lane, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }

  /** Hosts of shared trust domains start with the gateway; per-lane hosts on first use. */
  sharedHostKeys(): string[] {
    return Object.values(this.policy.domains)
      .filter((d) => !d.perLane && Object.values(this.policy.servers).some((s) => s.domain === d.name && s.enabled))
      .map((d) => d.name);
  }

  async listen(): Promise<string> {
    const app = buildApp(this, this.o.operatorHash);
    const g = this.policy.gateway;
    const port = this.o.port ?? g.port;
    const server = createServer({ connectionsCheckingInterval: CHECK_EVERY_MS }, app);
    this.server = server;
    // `Expect: 100-continue` on /mcp: the client is told to send its body only after its token
    // checks out. A bad token gets no 100; the handler then refuses it as any other (401).
    server.on('checkContinue', (req, res) => {
      const go = (): void => void server.emit('request', req, res);
      if (!(req.url ?? '').startsWith('/mcp')) {
        res.writeContinue();
        go();
        return;
      }
      // A body that could never be accepted gets its 413 without being invited (attack round 6).
      if (Number(req.headers['content-length']) > this.policy.gateway.maxBodyBytes) {
        go();
        return;
      }
      this.auth.authenticate(req.headers.authorization).then(() => {
        res.writeContinue();
        go();
      }, go);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, g.host, () => {
        this.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
    managePool(server, g.limits.connections);
    await Promise.all(this.sharedHostKeys().map((k) => this.hosts.start(k).catch(() => undefined)));
    // A budgeted pass measures what has never been measured; what it earns is applied live.
    setTimeout(() => void this.evaluator.budgeted(), 200).unref();
    // Sessions abandoned without DELETE end after their idle limit and let go of what they hold.
    setInterval(() => this.sessions.sweep(), 60_000).unref();
    // A lane's share grows back when the others go quiet: its waiting calls start.
    setInterval(() => {
      this.fair.tick();
      this.requestBytes.tick();
      this.answerBytes.tick();
    }, 250).unref();
    return this.url();
  }

  /** The review rows plus what only the running gateway knows (see live-review.ts). */
  liveReview(): Promise<ReviewRow[]> {
    return liveReview(this);
  }

  /** Hot reload (SIGHUP, `lanegate reload`): see reload.ts. */
  reload(): Promise<ReloadResult> {
    return reloadGateway(this);
  }

  /** The one place a policy is replaced: a reload that passed its checks (reload.ts). */
  adoptPolicy(next: Policy): void {
    this.policy = next;
  }

  url(): string {
    const h = this.policy.gateway.host;
    return this.policy.gateway.publicUrl ?? `http://${h.includes(':') ? `[${h}]` : h}:${this.port}/mcp`;
  }

  async close(): Promise<void> {
    await this.guardWriter.flush();
    await this.audit.close();
    this.sessions.closeAll();
    await this.hosts.close();
    await new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
