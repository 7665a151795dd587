/**
 * An open-loop load generator at a fixed rate, in its own process: request n is due at start + n / rate, whatever
 * happened to the earlier ones, and its latency is measured from that due time (so a slow answer that delays the
 * next sends counts against the server: no coordinated omission). This is what "a fixed 1,000 req/s" means; autocannon's
 * `overallRate` is not that — each connection sends its per-second quota back to back at the start of every second and
 * then idles (autocannon lib/httpClient.js, `reqsMadeThisSecond`), so its latencies are those of 20 concurrent
 * connections in a burst. Keep-alive connections (at most `connections`), the paths cycled in order.
 *   node -r @swc-node/register bench/paced-load.ts '<PacedLoadOptions as JSON>'   → prints PacedLoadResult as JSON
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface PacedLoadOptions {
  readonly base: string;
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  readonly rate: number;
  readonly seconds: number;
  readonly connections: number;
  /** Sent first at the same rate and not recorded: connections opened, the server's and the generator's JIT warm. */
  readonly warmupSeconds?: number;
}

export interface PacedLoadResult {
  readonly requests: number;
  readonly requestsPerSecond: number;
  /** From each request's due time to the end of its response, ms. */
  readonly latencyMs: { p50: number; p90: number; p99: number; p99_9: number; max: number; mean: number };
  readonly non2xx: number;
  readonly errors: number;
  /** How late the generator itself sent requests (timer granularity, its own CPU), ms: part of the latencies above. */
  readonly sendLagMs: { p50: number; p99: number; max: number };
  /** The ten slowest requests: when they were due (ms after the start), their latency and path — stalls cluster. */
  readonly slowest: { dueAtMs: number; latencyMs: number; path: string }[];
  /** The five seconds with the most requests over 10 ms (second from the start, how many, that second's worst). */
  readonly slowSeconds: { second: number; over10ms: number; maxMs: number }[];
}

const percentile = (sorted: Float64Array, p: number) => +(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(2);

/** Runs the load in this process. */
export async function pacedLoadHere(o: PacedLoadOptions): Promise<PacedLoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
  if (o.warmupSeconds) await paced(agent, { ...o, seconds: o.warmupSeconds });
  const result = await paced(agent, o);
  agent.destroy();
  return result;
}

async function paced(agent: http.Agent, o: PacedLoadOptions): Promise<PacedLoadResult> {
  const total = Math.round(o.rate * o.seconds);
  const latencies = new Float64Array(total);
  const lags = new Float64Array(total);
  const interval = 1000 / o.rate;
  let sent = 0;
  let finished = 0;
  let non2xx = 0;
  let errors = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const settle = (n: number, due: number, ok: boolean) => {
      latencies[n] = performance.now() - due;
      if (!ok) non2xx++;
      if (++finished === total) resolve();
    };
    const tick = () => {
      const now = performance.now();
      // Every request due by now goes out now (a late timer sends the backlog at once, and its latency counts).
      while (sent < total && start + sent * interval <= now) {
        const n = sent++;
        const due = start + n * interval;
        lags[n] = now - due;
        const req = http.get(o.base + o.paths[n % o.paths.length], { agent, headers: o.headers }, (res) => {
          res.resume();
          res.once('end', () => settle(n, due, res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300));
        });
        req.once('error', () => {
          errors++;
          settle(n, due, false);
        });
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
  const elapsed = (performance.now() - start) / 1000;
  const slowest = [...latencies.keys()]
    .sort((a, b) => latencies[b]! - latencies[a]!)
    .slice(0, 10)
    .map((n) => ({ dueAtMs: Math.round(n * interval), latencyMs: +latencies[n]!.toFixed(2), path: o.paths[n % o.paths.length]! }));
  const perSecond = new Map<number, { second: number; over10ms: number; maxMs: number }>();
  latencies.forEach((ms, n) => {
    const second = Math.floor((n * interval) / 1000);
    const s = perSecond.get(second) ?? { second, over10ms: 0, maxMs: 0 };
    if (ms > 10) s.over10ms++;
    s.maxMs = Math.max(s.maxMs, +ms.toFixed(2));
    perSecond.set(second, s);
  });
  const slowSeconds = [...perSecond.values()].sort((a, b) => b.over10ms - a.over10ms || b.maxMs - a.maxMs).slice(0, 5);
  const sorted = latencies.slice().sort();
  const sortedLags = lags.slice().sort();
  return {
    requests: total,
    requestsPerSecond: Math.round(total / elapsed),
    latencyMs: {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      p99_9: percentile(sorted, 99.9),
      max: +sorted[sorted.length - 1]!.toFixed(2),
      mean: +(sorted.reduce((a, b) => a + b, 0) / total).toFixed(2),
    },
    non2xx,
    errors,
    sendLagMs: { p50: percentile(sortedLags, 50), p99: percentile(sortedLags, 99), max: +sortedLags[sortedLags.length - 1]!.toFixed(2) },
    slowest,
    slowSeconds,
  };
}

/** Runs the load in a child process, so the generator does not share the server's event loop. */
export function pacedLoad(o: PacedLoadOptions): Promise<PacedLoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', __filename, JSON.stringify(o)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as PacedLoadResult) : reject(new Error(`paced load exited ${code}: ${out}`))));
  });
}

if (require.main === module) {
  pacedLoadHere(JSON.parse(process.argv[2]!) as PacedLoadOptions).then(
    (r) => process.stdout.write(JSON.stringify(r)),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
