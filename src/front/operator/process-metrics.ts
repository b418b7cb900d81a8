import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { formatValue, Histogram, type Registry } from './prometheus.js';

/**
 * The process metrics a Node service is expected to expose, under the names and meanings of
 * prom-client's defaults (dashboards built for those keep working): CPU, memory, heap spaces, file
 * descriptors, start time, active resources, GC pauses, and event-loop delay since the previous
 * scrape. Series that need /proc are absent off Linux, never made-up zeros.
 */
export const collectProcessMetrics = (registry: Registry): void => {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  const gc = new Histogram({
    name: 'nodejs_gc_duration_seconds',
    help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'],
    buckets: [0.001, 0.01, 0.1, 1, 2, 5],
    registers: [registry],
  });
  const GC_KINDS: Record<number, string> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
      gc.observe({ kind: GC_KINDS[kind] ?? 'unknown' }, e.duration / 1000);
    }
  }).observe({ entryTypes: ['gc'] });

  const series = (out: string[], name: string, type: string, help: string, values: Array<[string, number]>): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of values) out.push(`${name}${labels} ${formatValue(v)}`);
  };
  const one = (out: string[], name: string, type: string, help: string, value: number, labels = ''): void =>
    series(out, name, type, help, [[labels, value]]);
  const proc = (read: () => number): number | undefined => {
    try {
      return read();
    } catch {
      return undefined;
    }
  };

  registry.addCollector((out) => {
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    one(out, 'process_cpu_user_seconds_total', 'counter', 'Total user CPU time spent in seconds.', cpu.user / 1e6);
    one(out, 'process_cpu_system_seconds_total', 'counter', 'Total system CPU time spent in seconds.', cpu.system / 1e6);
    one(out, 'process_cpu_seconds_total', 'counter', 'Total user and system CPU time spent in seconds.', (cpu.user + cpu.system) / 1e6);
    one(out, 'process_start_time_seconds', 'gauge', 'Start time of the process since unix epoch in seconds.', startSeconds);
    one(out, 'process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', mem.rss);
    const vm = proc(() => Number(/VmSize:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024);
    if (vm !== undefined && Number.isFinite(vm)) one(out, 'process_virtual_memory_bytes', 'gauge', 'Virtual memory size in bytes.', vm);
    // The directory listing holds a descriptor of its own while it reads: not one of the process's.
    const fds = proc(() => readdirSync('/proc/self/fd').length - 1);
    if (fds !== undefined) one(out, 'process_open_fds', 'gauge', 'Number of open file descriptors.', fds);
    const maxFds = proc(() => Number(/Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]));
    if (maxFds !== undefined && Number.isFinite(maxFds))
      one(out, 'process_max_fds', 'gauge', 'Maximum number of open file descriptors.', maxFds);
    one(out, 'nodejs_heap_size_total_bytes', 'gauge', 'Process heap size from Node.js in bytes.', mem.heapTotal);
    one(out, 'nodejs_heap_size_used_bytes', 'gauge', 'Process heap size used from Node.js in bytes.', mem.heapUsed);
    one(out, 'nodejs_external_memory_bytes', 'gauge', 'Node.js external memory size in bytes.', mem.external);
    const spaces = getHeapSpaceStatistics();
    const bySpace = (f: (s: (typeof spaces)[number]) => number): Array<[string, number]> =>
      spaces.map((s) => [`{space="${s.space_name.replace(/_space$/, '')}"}`, f(s)]);
    series(
      out,
      'nodejs_heap_space_size_total_bytes',
      'gauge',
      'Process heap space size total from Node.js in bytes.',
      bySpace((s) => s.space_size),
    );
    series(
      out,
      'nodejs_heap_space_size_used_bytes',
      'gauge',
      'Process heap space size used from Node.js in bytes.',
      bySpace((s) => s.space_used_size),
    );
    series(
      out,
      'nodejs_heap_space_size_available_bytes',
      'gauge',
      'Process heap space size available from Node.js in bytes.',
      bySpace((s) => s.space_available_size),
    );
    const resources = new Map<string, number>();
    for (const r of process.getActiveResourcesInfo()) resources.set(r, (resources.get(r) ?? 0) + 1);
    series(
      out,
      'nodejs_active_resources',
      'gauge',
      'Active resources keeping the event loop alive, by type.',
      [...resources].map(([t, n]) => [`{type="${t.replace(/["\\\n]/g, '_')}"}`, n]),
    );
    one(
      out,
      'nodejs_active_resources_total',
      'gauge',
      'Total number of active resources.',
      [...resources.values()].reduce((a, b) => a + b, 0),
    );
    const s = (v: number): number => (Number.isFinite(v) ? v / 1e9 : 0);
    const since = 'since the previous scrape, in seconds.';
    one(out, 'nodejs_eventloop_lag_min_seconds', 'gauge', `The minimum event loop delay ${since}`, s(loop.min));
    one(out, 'nodejs_eventloop_lag_max_seconds', 'gauge', `The maximum event loop delay ${since}`, s(loop.max));
    one(out, 'nodejs_eventloop_lag_mean_seconds', 'gauge', `The mean event loop delay ${since}`, s(loop.mean));
    one(out, 'nodejs_eventloop_lag_stddev_seconds', 'gauge', `The standard deviation of the event loop delay ${since}`, s(loop.stddev));
    for (const p of [50, 90, 99])
      one(
        out,
        `nodejs_eventloop_lag_p${p}_seconds`,
        'gauge',
        `The ${p}th percentile of the event loop delay ${since}`,
        s(loop.percentile(p)),
      );
    loop.reset();
    const [major, minor, patch] = process.version.slice(1).split('.');
    one(
      out,
      'nodejs_version_info',
      'gauge',
      'Node.js version info.',
      1,
      `{version="${process.version}",major="${major}",minor="${minor}",patch="${patch}"}`,
    );
  });
};
