/**
 * Reading the system's own Prometheus endpoint (`/metrics`: prom-client's default Node metrics) in the benchmarks
 * that run the whole system in another process, where V8's figures cannot be asked for directly.
 */
const MB = 2 ** 20;

/** The bearer token the benchmarks give `npm start` (METRICS_TOKEN): /metrics is not public on the API port. */
export const BENCH_METRICS_TOKEN = 'bench-metrics-token-0123456789';

export const fetchMetricsText = async (base: string): Promise<string> =>
  (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } })).text();

/** A sample's value in MB: the first line of metric `name` whose labels contain `label` (any labels when omitted). */
export function metricMB(text: string, name: string, label = ''): number | undefined {
  const labels = label ? `\\{[^}]*${label}[^}]*\\}` : '(?:\\{[^}]*\\})?';
  const m = new RegExp(`^${name}${labels} ([0-9.e+]+)$`, 'm').exec(text);
  return m ? +(Number(m[1]) / MB).toFixed(1) : undefined;
}

/** Garbage collections since the process started, by kind (minor, major, incremental, …): how many, total pause. */
export function gcTotals(text: string): Record<string, { count: number; seconds: number }> {
  const gc: Record<string, { count: number; seconds: number }> = {};
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_(sum|count)\{[^}]*kind="(\w+)"[^}]*\} ([0-9.e+-]+)$/gm)) {
    const entry = (gc[m[2]!] ??= { count: 0, seconds: 0 });
    if (m[1] === 'count') entry.count = Number(m[3]);
    else entry.seconds = +Number(m[3]).toFixed(3);
  }
  return gc;
}
