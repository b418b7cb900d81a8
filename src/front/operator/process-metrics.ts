import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { formatValue, type Registry } from './prometheus.js';

/**
 * The process metrics a Node service is expected to expose, under the names prom-client's
 * defaults use (dashboards built for those keep working): CPU, resident memory, heap, open file
 * descriptors, start time, and event-loop delay since the previous scrape.
 */
export const collectProcessMetrics = (registry: Registry): void => {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  const one = (out: string[], name: string, type: string, help: string, value: number, labels = ''): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name}${labels} ${formatValue(value)}`);
  };
  registry.addCollector((out) => {
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    one(out, 'process_cpu_user_seconds_total', 'counter', 'User CPU time spent in seconds.', cpu.user / 1e6);
    one(out, 'process_cpu_system_seconds_total', 'counter', 'System CPU time spent in seconds.', cpu.system / 1e6);
    one(out, 'process_cpu_seconds_total', 'counter', 'Total user and system CPU time spent in seconds.', (cpu.user + cpu.system) / 1e6);
    one(out, 'process_start_time_seconds', 'gauge', 'Start time of the process since unix epoch in seconds.', startSeconds);
    one(out, 'process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', mem.rss);
    one(out, 'nodejs_heap_size_total_bytes', 'gauge', 'Process heap size from Node.js in bytes.', mem.heapTotal);
    one(out, 'nodejs_heap_size_used_bytes', 'gauge', 'Process heap size used from Node.js in bytes.', mem.heapUsed);
    one(out, 'nodejs_external_memory_bytes', 'gauge', 'Node.js external memory size in bytes.', mem.external);
    try {
      one(out, 'process_open_fds', 'gauge', 'Number of open file descriptors.', readdirSync('/proc/self/fd').length);
    } catch {
      // Not Linux: no /proc, no series (an absent series, never a made-up zero).
    }
    const ns = (v: number): number => (Number.isFinite(v) ? v / 1e9 : 0);
    const since = 'since the previous scrape, in seconds.';
    one(out, 'nodejs_eventloop_lag_p50_seconds', 'gauge', `The 50th percentile of the event loop delay ${since}`, ns(loop.percentile(50)));
    one(out, 'nodejs_eventloop_lag_p99_seconds', 'gauge', `The 99th percentile of the event loop delay ${since}`, ns(loop.percentile(99)));
    one(out, 'nodejs_eventloop_lag_max_seconds', 'gauge', `The maximum event loop delay ${since}`, ns(loop.max));
    loop.reset();
    one(out, 'nodejs_version_info', 'gauge', 'Node.js version info.', 1, `{version="${process.version}"}`);
  });
};
