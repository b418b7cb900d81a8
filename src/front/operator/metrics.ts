import { collectProcessMetrics } from './process-metrics.js';
import { Counter, Gauge, Histogram, Registry } from './prometheus.js';

/**
 * The front's Prometheus metrics. Label values are policy names (lanes, servers) and stable
 * codes, never request content.
 */
export class Metrics {
  readonly registry = new Registry();

  constructor() {
    // The process metrics every Node service exposes (CPU, resident memory, heap, event-loop delay).
    collectProcessMetrics(this.registry);
  }

  readonly calls = new Counter({
    name: 'lanegate_calls_total',
    help: 'tools/call, prompts/get and resources/read forwarded, by upstream and lane',
    labelNames: ['server', 'lane', 'method'],
    registers: [this.registry],
  });
  readonly errors = new Counter({
    name: 'lanegate_call_errors_total',
    help: 'Forwarded calls that failed, by upstream, lane and kind',
    labelNames: ['server', 'lane', 'kind'],
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'lanegate_call_duration_seconds',
    help: 'Latency of forwarded calls through front, host and upstream',
    labelNames: ['server', 'lane'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly hostRequests = new Counter({
    name: 'lanegate_host_requests_total',
    help: 'Requests the front sent to hosts',
    labelNames: ['method'],
    registers: [this.registry],
  });
  readonly authRefused = new Counter({
    name: 'lanegate_auth_refused_total',
    help: 'Requests refused for their lane token',
    labelNames: ['code'],
    registers: [this.registry],
  });
  readonly httpRefused = new Counter({
    name: 'lanegate_http_refused_total',
    help: 'Requests refused before auth (Host/Origin)',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly restarts = new Counter({
    name: 'lanegate_restarts_total',
    help: 'Crashes of upstream children and hosts',
    labelNames: ['kind', 'server'],
    registers: [this.registry],
  });
  readonly hazards = new Counter({
    name: 'lanegate_hazards_total',
    help: 'Hazards observed on shared children',
    labelNames: ['server', 'code'],
    registers: [this.registry],
  });
  readonly escalations = new Counter({
    name: 'lanegate_escalations_total',
    help: 'Lanes moved off a shared child by a request outside its demonstrated scope',
    labelNames: ['server', 'lane'],
    registers: [this.registry],
  });
  readonly secrets = new Counter({
    name: 'lanegate_secret_blocks_total',
    help: 'Secrets seen in calls, by upstream, direction (arguments: lane to upstream; answers: upstream to lane), rule and what was done',
    labelNames: ['server', 'direction', 'rule', 'action'],
    registers: [this.registry],
  });
  readonly placed = new Counter({
    name: 'lanegate_placement_changes_total',
    help: 'Live placement changes: a server promoted or retreated, a lane moved onto a shared child',
    labelNames: ['server', 'change'],
    registers: [this.registry],
  });
  readonly guard = new Counter({
    name: 'lanegate_guard_reports_total',
    help: 'Guard verdicts on upstream surfaces',
    labelNames: ['server', 'status'],
    registers: [this.registry],
  });
  readonly passes = new Counter({
    name: 'lanegate_measure_passes_total',
    help: 'Evaluation passes run',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly reloads = new Counter({
    name: 'lanegate_reloads_total',
    help: 'Policy reloads',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly drift = new Counter({
    name: 'lanegate_inventory_drift_total',
    help: 'Declared-inventory mismatches reported',
    labelNames: ['server'],
    registers: [this.registry],
  });
  readonly processes = new Gauge({
    name: 'lanegate_upstream_processes',
    help: 'Running upstream children by placement',
    labelNames: ['placement'],
    registers: [this.registry],
  });
  readonly sessions = new Gauge({ name: 'lanegate_sessions', help: 'Open legacy-era sessions', registers: [this.registry] });
  readonly lanesConnected = new Gauge({
    name: 'lanegate_lanes_connected',
    help: 'Lanes seen in the last 5 minutes',
    registers: [this.registry],
  });
  readonly hosts = new Gauge({ name: 'lanegate_hosts_running', help: 'Host processes running', registers: [this.registry] });
}
