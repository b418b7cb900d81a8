import type { Server } from 'node:http';
import type { CryptoKey } from 'jose';
import type { Logger } from 'pino';
import type { HostConfig } from '../link/config.js';
import type { Policy } from '../policy/model.js';
import type { RawResult } from '../rpc/raw.js';
import type { JsonText } from '../rpc/json-text.js';
import { parseHostKey } from '../routing/route.js';
import type { Placement } from '../shareability/placement.js';
import { Evidence } from './operator/evidence.js';
import { Evaluator } from './operator/evaluator.js';
import { type ReloadResult, reloadGateway } from './operator/reload.js';
import { buildApp } from './app.js';
import { LaneAuth } from './transport/auth.js';
import { Catalog } from './mcp/catalog.js';
import { hostConfigFor } from './hosts/host-config.js';
import { type HostLauncher, HostManager } from './hosts/hosts.js';
import { Metrics } from './operator/metrics.js';
import { Sessions } from './mcp/sessions.js';
import { Correlation } from './mcp/correlation.js';
import { type ClientRelayDeps, ClientTaskPins } from './mcp/client-tasks.js';
import { type GuardFile, readGuard } from '../records/guard-file.js';
import { logRecordProblems } from './operator/record-events.js';
import { GuardWriter } from './operator/guard-writer.js';
import { readTrust, trustReader } from '../records/trust-file.js';
import { CatalogGuard } from './mcp/catalog-guard.js';
import { recordCatalogVerdict } from './operator/record-catalog.js';
import { UpstreamHealth } from './operator/upstream-health.js';
import { Escalations } from './operator/escalations.js';
import { LaneLoad } from './transport/lane-load.js';
import { SendBudget } from './transport/send-budget.js';
import { BYTE_TURN_MIN, ByteTurns } from '../link/byte-turns.js';
import { oneAtATime } from './operator/one-at-a-time.js';
import { FairShare } from './transport/fair-share.js';
import type { ReviewRow } from '../shareability/review.js';
import { liveReview } from './operator/live-review.js';
import { LivePlacement } from './operator/live-placement.js';
import { openHttpServer } from './transport/http-server.js';
import { hostEvents } from './host-events.js';
import { AuditWriter, auditDir } from '../audit/writer.js';

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
  /** The front's one correlation table: calls in flight, call streams, client requests, parked calls (mcp/correlation.ts). */
  readonly calls = new Correlation();
  readonly pins = new ClientTaskPins();
  /** What relaying an upstream's request to a lane's client uses (client-tasks.ts). */
  private readonly relay: ClientRelayDeps = {
    clientRequests: this.calls.clientRequests,
    streams: this.calls.streams,
    sessions: this.sessions,
    pins: this.pins,
  };
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
    this.hosts = new HostManager((key) => this.hostConfig(key), hostEvents(this, this.guardWriter, this.relay), o.log, o.launchHost);
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

  /** Hosts of shared trust domains start with the gateway; per-lane hosts on first use. */
  sharedHostKeys(): string[] {
    return Object.values(this.policy.domains)
      .filter((d) => !d.perLane && Object.values(this.policy.servers).some((s) => s.domain === d.name && s.enabled))
      .map((d) => d.name);
  }

  async listen(): Promise<string> {
    const g = this.policy.gateway;
    const { server, port } = await openHttpServer(buildApp(this, this.o.operatorHash), {
      host: g.host,
      port: this.o.port ?? g.port,
      connections: g.limits.connections,
      maxBodyBytes: () => this.policy.gateway.maxBodyBytes,
      authenticate: (authorization: string | undefined) => this.auth.authenticate(authorization),
    });
    this.server = server;
    this.port = port;
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
    return this.reloadInTurn();
  }

  /** Reloads never overlap: one asked for while one runs comes after it (one-at-a-time.ts). */
  private readonly reloadInTurn = oneAtATime(() => reloadGateway(this));

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
