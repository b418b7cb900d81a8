import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectProcessMetrics } from '../../src/front/operator/process-metrics.js';
import { Counter, Gauge, Histogram, Registry } from '../../src/front/operator/prometheus.js';

/** One exposition line: a name, optional labels, a value (the grammar Prometheus reads). */
const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*\})? (-?[0-9.e+-]+|\+Inf|-Inf|NaN)$/;
const COMMENT = /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*$/;

describe('the Prometheus exposition', () => {
  it('writes counters, gauges and cumulative histograms with labels in declared order', async () => {
    const r = new Registry();
    const calls = new Counter({ name: 't_calls_total', help: 'calls', labelNames: ['server', 'lane'], registers: [r] });
    const up = new Gauge({ name: 't_up', help: 'up', registers: [r] });
    const lat = new Histogram({ name: 't_seconds', help: 'latency', labelNames: ['lane'], buckets: [0.1, 0.01, 1], registers: [r] });
    calls.inc({ lane: 'a', server: 's' });
    calls.inc({ server: 's', lane: 'a' }, 2);
    calls.inc({ server: 's', lane: 'b' });
    up.set(3);
    for (const v of [0.005, 0.05, 0.05, 0.5, 7]) lat.observe({ lane: 'a' }, v);
    assert.equal(
      await r.metrics(),
      [
        '# HELP t_calls_total calls',
        '# TYPE t_calls_total counter',
        't_calls_total{server="s",lane="a"} 3',
        't_calls_total{server="s",lane="b"} 1',
        '# HELP t_up up',
        '# TYPE t_up gauge',
        't_up 3',
        '# HELP t_seconds latency',
        '# TYPE t_seconds histogram',
        't_seconds_bucket{le="0.01",lane="a"} 1',
        't_seconds_bucket{le="0.1",lane="a"} 3',
        't_seconds_bucket{le="1",lane="a"} 4',
        't_seconds_bucket{le="+Inf",lane="a"} 5',
        't_seconds_sum{lane="a"} 7.605',
        't_seconds_count{lane="a"} 5',
        '',
      ].join('\n'),
    );
  });

  it('escapes label values and help so no value can forge a line or a series', async () => {
    const r = new Registry();
    const c = new Counter({ name: 't_total', help: 'a\\b\nc', labelNames: ['lane'], registers: [r] });
    c.inc({ lane: 'x"} 999\nt_total{lane="y' });
    const text = await r.metrics();
    assert.equal(text.split('\n').length, 4, 'three lines and the final newline');
    assert.ok(text.includes('# HELP t_total a\\\\b\\nc'));
    assert.ok(text.includes('t_total{lane="x\\"} 999\\nt_total{lane=\\"y"} 1'));
    for (const line of text.trimEnd().split('\n')) assert.match(line, line.startsWith('#') ? COMMENT : SAMPLE);
  });

  it('refuses what Prometheus would misread: a counter going down, a name registered twice', () => {
    const r = new Registry();
    const c = new Counter({ name: 't_total', help: 'h', registers: [r] });
    assert.throws(() => c.inc(undefined, -1), /only go up/);
    assert.throws(() => c.inc(undefined, Number.NaN), /only go up/);
    assert.throws(() => new Gauge({ name: 't_total', help: 'h', registers: [r] }), /registered twice/);
  });

  it('adds the process metrics under the names Node dashboards expect, every line well formed', async () => {
    const r = new Registry();
    collectProcessMetrics(r);
    const text = await r.metrics();
    for (const line of text.trimEnd().split('\n')) assert.match(line, line.startsWith('#') ? COMMENT : SAMPLE);
    const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.ok(value('process_resident_memory_bytes') > 10 * 2 ** 20);
    assert.ok(value('process_cpu_seconds_total') > 0);
    assert.ok(value('process_open_fds') > 2);
    // The count is the process's own descriptors, not the one the listing itself held.
    const { readdirSync } = await import('node:fs');
    assert.ok(Math.abs(value('process_open_fds') - (readdirSync('/proc/self/fd').length - 1)) <= 1);
    assert.ok(Math.abs(value('process_start_time_seconds') - (Date.now() / 1000 - process.uptime())) < 2);
    assert.ok(value('nodejs_eventloop_lag_max_seconds') >= 0);
    const [major] = process.version.slice(1).split('.');
    assert.match(
      text,
      new RegExp(`^nodejs_version_info\\{version="${process.version}",major="${major}",minor="\\d+",patch="\\d+"\\} 1$`, 'm'),
    );
    assert.ok(value('process_max_fds') >= value('process_open_fds'));
    assert.ok(value('process_virtual_memory_bytes') > value('process_resident_memory_bytes'));
    assert.match(text, /^nodejs_heap_space_size_used_bytes\{space="old"\} \d+$/m);
    assert.ok(value('nodejs_active_resources_total') >= 0);
    for (const p of ['min', 'mean', 'stddev', 'p50', 'p90', 'p99'])
      assert.match(text, new RegExp(`^nodejs_eventloop_lag_${p}_seconds `, 'm'));
    assert.match(text, /^# TYPE nodejs_gc_duration_seconds histogram$/m);
    // Garbage made now is collected, and the pause is counted by kind. The objects escape into an
    // array (an optimised loop may elide objects that never escape), and there are ~100 MB of them:
    // more than a young generation holds even in a process whose earlier tests grew it, as when the
    // unit files share one process.
    let keep = 0;
    let junk: { i: number }[] = [];
    for (let i = 0; i < 2_000_000; i++) {
      junk.push({ i });
      if (junk.length === 1000) {
        keep += junk.length;
        junk = [];
      }
    }
    await new Promise((r) => setTimeout(r, 50));
    const after = await r.metrics();
    assert.ok(keep > 0);
    assert.match(after, /^nodejs_gc_duration_seconds_count\{kind="minor"\} [1-9]\d*$/m);
  });
});
