import type { Logger } from 'pino';
import type { AuditWriter } from '../audit/writer.js';
import type { HostConfig } from '../link/config.js';
import type { Policy } from '../policy/model.js';
import type { GuardFile } from '../records/guard-file.js';
import type { JsonText } from '../rpc/json-text.js';
import type { RawResult } from '../rpc/raw.js';
import type { ReviewRow } from '../shareability/review.js';
import type { HostManager } from './hosts/hosts.js';
import type { Catalog } from './mcp/catalog.js';
import type { Correlation } from './mcp/correlation.js';
import type { Sessions } from './mcp/sessions.js';
import type { Escalations } from './operator/escalations.js';
import type { Evaluator } from './operator/evaluator.js';
import type { Evidence } from './operator/evidence.js';
import type { LivePlacement } from './operator/live-placement.js';
import type { Metrics } from './operator/metrics.js';
import type { UpstreamHealth } from './operator/upstream-health.js';
import type { LaneAuth } from './transport/auth.js';
import type { ByteTurns } from '../link/byte-turns.js';
import type { FairShare } from './transport/fair-share.js';
import type { LaneLoad } from './transport/lane-load.js';
import type { SendBudget } from './transport/send-budget.js';

/** What a hot reload reports (operator/reload.ts). */
export interface ReloadResult {
  ok: boolean;
  problems: string[];
  changes: Record<string, unknown>;
}

/**
 * What the front's modules may see of the running gateway. Gateway (front/gateway.ts) has this shape;
 * the modules it composes (the HTTP app, the operator plane) take this or a narrow Pick of it, never the
 * Gateway class, so gateway.ts is imported only by the command that starts it and no import circles
 * back through it. The policy is read here; only a reload replaces it, through ReloadParts.
 */
export interface FrontParts {
  readonly policy: Policy;
  readonly log: Logger;
  readonly hosts: HostManager;
  readonly catalog: Catalog;
  readonly sessions: Sessions;
  /** The front's one correlation table (calls in flight, call streams, client requests, parked calls). */
  readonly calls: Correlation;
  readonly metrics: Metrics;
  readonly load: LaneLoad;
  readonly fair: FairShare;
  readonly send: SendBudget;
  readonly requestBytes: ByteTurns;
  readonly answerBytes: ByteTurns;
  readonly lastSeen: Map<string, number>;
  readonly auth: LaneAuth;
  readonly port: number;
  readonly guard: GuardFile;
  readonly evidence: Evidence;
  readonly inventory: Record<string, { line: string; withheld: boolean; at: string }>;
  readonly evaluator: Evaluator;
  readonly escalations: Escalations;
  readonly audit: AuditWriter;
  readonly upstreamHealth: UpstreamHealth;
  readonly live: LivePlacement;
  readonly portOverridden: boolean;
  hostRequestRaw(
    key: string,
    method: string,
    params: Record<string, unknown> | JsonText,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<RawResult>;
  hostConfig(key: string): HostConfig | undefined;
  sharedHostKeys(): string[];
  liveReview(): Promise<ReviewRow[]>;
  reload(): Promise<ReloadResult>;
  url(): string;
}

/** What a hot reload needs: read the gateway, and put the new policy in force (the one place it is replaced). */
export type ReloadParts = Pick<
  FrontParts,
  | 'policy'
  | 'log'
  | 'metrics'
  | 'portOverridden'
  | 'auth'
  | 'evidence'
  | 'sessions'
  | 'calls'
  | 'hosts'
  | 'hostConfig'
  | 'sharedHostKeys'
  | 'catalog'
> & { adoptPolicy(next: Policy): void };

/** What the status payload reads (operator/status-api.ts) and the servers review beside it (live-review.ts). */
export type ReviewParts = Pick<FrontParts, 'inventory' | 'evidence' | 'guard' | 'hosts' | 'escalations' | 'policy' | 'live'>;
export type StatusParts = ReviewParts & Pick<FrontParts, 'lastSeen' | 'sessions' | 'upstreamHealth' | 'url'>;

/** What the gauges refreshed before a metrics scrape read (operator/gauges.ts). */
export type GaugeParts = Pick<FrontParts, 'hosts' | 'metrics' | 'sessions' | 'lastSeen'>;

/** What the health, readiness and metrics probes read (operator/probes.ts). */
export type ProbeParts = GaugeParts & Pick<FrontParts, 'sharedHostKeys'>;

/** What the record watcher touches (operator/state-watch.ts). */
export type StateWatchParts = Pick<FrontParts, 'auth' | 'sessions' | 'policy' | 'catalog'>;
