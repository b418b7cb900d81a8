/**
 * The Prometheus text exposition format (version 0.0.4), for the few metric kinds the front keeps:
 * counters, gauges and histograms with fixed label names. prom-client did this before and cost the
 * front about 4 MB of its idle memory (with OpenTelemetry, t-digest and a tree library it loads for
 * summaries the front never uses); this is what the front needs of it. Label values are policy
 * names and stable codes, and are escaped anyway.
 */
export type Labels = Readonly<Record<string, string>>;

interface Family {
  readonly name: string;
  render(out: string[]): void;
}

/** A label value or help text as the format requires: backslash, double quote and newline escaped. */
const escapeValue = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** A number as Prometheus reads it (Infinity and NaN spelled its way). */
export const formatValue = (n: number): string =>
  Number.isNaN(n) ? 'NaN' : n === Infinity ? '+Inf' : n === -Infinity ? '-Inf' : String(n);

export class Registry {
  readonly contentType = 'text/plain; version=0.0.4; charset=utf-8';
  private readonly families: Family[] = [];
  private readonly collectors: Array<(out: string[]) => void> = [];

  register(f: Family): void {
    if (this.families.some((g) => g.name === f.name)) throw new Error(`metric ${f.name} registered twice`);
    this.families.push(f);
  }

  /** A function that writes whole families of its own at scrape time (process metrics). */
  addCollector(c: (out: string[]) => void): void {
    this.collectors.push(c);
  }

  /** Every family in the exposition format (a promise, as prom-client's was, for the route). */
  async metrics(): Promise<string> {
    const out: string[] = [];
    for (const c of this.collectors) c(out);
    for (const f of this.families) f.render(out);
    return `${out.join('\n')}\n`;
  }
}

interface Options {
  name: string;
  help: string;
  labelNames?: readonly string[];
  registers: Registry[];
}

/** A family's series, keyed by its label values in declared order. */
abstract class Series<T> implements Family {
  readonly name: string;
  protected readonly series = new Map<string, { labels: string; value: T }>();
  private readonly labelNames: readonly string[];

  constructor(
    private readonly o: Options,
    private readonly type: string,
  ) {
    this.name = o.name;
    this.labelNames = o.labelNames ?? [];
    for (const r of o.registers) r.register(this);
  }

  protected slot(labels: Labels | undefined, fresh: () => T): { labels: string; value: T } {
    let key = '';
    for (const n of this.labelNames) key += `${labels?.[n] ?? ''}\u0000`;
    let s = this.series.get(key);
    if (!s) {
      const parts = this.labelNames.map((n) => `${n}="${escapeValue(labels?.[n] ?? '')}"`);
      s = { labels: parts.join(','), value: fresh() };
      this.series.set(key, s);
    }
    return s;
  }

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.o.help)}`, `# TYPE ${this.name} ${this.type}`);
    for (const s of this.series.values()) this.renderSeries(out, s.labels, s.value);
  }

  protected abstract renderSeries(out: string[], labels: string, value: T): void;
}

const braces = (labels: string): string => (labels ? `{${labels}}` : '');

export class Counter extends Series<{ n: number }> {
  constructor(o: Options) {
    super(o, 'counter');
  }
  inc(labels?: Labels, by = 1): void {
    if (!(by >= 0)) throw new Error(`counter ${this.name} can only go up`);
    this.slot(labels, () => ({ n: 0 })).value.n += by;
  }
  protected renderSeries(out: string[], labels: string, v: { n: number }): void {
    out.push(`${this.name}${braces(labels)} ${formatValue(v.n)}`);
  }
}

export class Gauge extends Series<{ n: number }> {
  constructor(o: Options) {
    super(o, 'gauge');
    // A gauge without labels reads 0 until it is set, as prom-client's did.
    if (!o.labelNames?.length) this.set(0);
  }
  /** set(value) for a gauge without labels, set(labels, value) for one with. */
  set(labelsOrValue: Labels | number, value?: number): void {
    const [labels, n] = typeof labelsOrValue === 'number' ? [undefined, labelsOrValue] : [labelsOrValue, value ?? 0];
    this.slot(labels, () => ({ n: 0 })).value.n = n;
  }
  protected renderSeries(out: string[], labels: string, v: { n: number }): void {
    out.push(`${this.name}${braces(labels)} ${formatValue(v.n)}`);
  }
}

interface Buckets {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Series<Buckets> {
  private readonly bounds: readonly number[];
  constructor(o: Options & { buckets: readonly number[] }) {
    super(o, 'histogram');
    this.bounds = [...o.buckets].sort((a, b) => a - b);
  }
  observe(labels: Labels, value: number): void {
    const b = this.slot(labels, () => ({ counts: this.bounds.map(() => 0), sum: 0, count: 0 })).value;
    // Non-cumulative counts here; the exposition sums them into Prometheus's cumulative buckets.
    const i = this.bounds.findIndex((le) => value <= le);
    if (i >= 0) b.counts[i] = (b.counts[i] ?? 0) + 1;
    b.sum += value;
    b.count += 1;
  }
  protected renderSeries(out: string[], labels: string, b: Buckets): void {
    const rest = labels ? `,${labels}` : '';
    let cumulative = 0;
    this.bounds.forEach((le, i) => {
      cumulative += b.counts[i] ?? 0;
      out.push(`${this.name}_bucket{le="${formatValue(le)}"${rest}} ${cumulative}`);
    });
    out.push(`${this.name}_bucket{le="+Inf"${rest}} ${b.count}`);
    out.push(`${this.name}_sum${braces(labels)} ${formatValue(b.sum)}`, `${this.name}_count${braces(labels)} ${b.count}`);
  }
}
