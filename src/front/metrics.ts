/**
 * A few counters the front keeps for /metrics (Prometheus text format). Label values are
 * policy names (lanes, servers, codes), never request content.
 */
export class Counters {
  private readonly values = new Map<string, number>();

  inc(name: string, labels: Record<string, string> = {}, by = 1): void {
    const key = `${name}${formatLabels(labels)}`;
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  get(name: string, labels: Record<string, string> = {}): number {
    return this.values.get(`${name}${formatLabels(labels)}`) ?? 0;
  }

  render(gauges: Record<string, number> = {}): string {
    const lines: string[] = [];
    for (const [k, v] of [...this.values].sort()) lines.push(`${k} ${v}`);
    for (const [k, v] of Object.entries(gauges)) lines.push(`${k} ${v}`);
    return `${lines.join('\n')}\n`;
  }
}

const formatLabels = (labels: Record<string, string>): string => {
  const e = Object.entries(labels);
  if (e.length === 0) return '';
  return `{${e.map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`).join(',')}}`;
};
