import autocannon from 'autocannon';

/**
 * One closed-loop autocannon run (no pipelining) from inside the benchmark's own process, as the auth and read-API
 * benches measure. Besides throughput it records this process's CPU time per request (`process.cpuUsage`, user +
 * system, server and load generator together). Diagnostic only: it was hoped to move less than req/s between runs,
 * but a slow round here also costs more CPU per request (docs/benchmarks-journal.md).
 */
export async function closedLoopRun(url: string, headers: Record<string, string>, options: { connections: number; durationSeconds: number }) {
  const cpu = process.cpuUsage();
  const r = await autocannon({ url, headers, connections: options.connections, pipelining: 1, duration: options.durationSeconds });
  const used = process.cpuUsage(cpu);
  return {
    requestsPerSecond: +r.requests.average.toFixed(0),
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, mean: +r.latency.mean.toFixed(2) },
    total: r.requests.total,
    cpuMicrosPerRequest: +((used.user + used.system) / Math.max(1, r.requests.total)).toFixed(1),
    non2xx: r.non2xx,
    errors: r.errors,
  };
}
