/**
 * A fixed-rate mixed read load, as agents would make it: pools list, pool detail, listings, a pool's market stats
 * and the key wallet's portfolio, cycled by every connection, at 1,000 requests/s overall for 60 s (autocannon
 * `overallRate`, latencies corrected for coordinated omission) and paced evenly (bench/paced-load.ts). Served by the real API stack (key gate + rate
 * limiter, validation, cached query services over projected read models) on embedded PGlite (in-process limiter,
 * as `npm start`) and on PostgreSQL (Redis limiter and the shared key cache, as a scaled deployment). The load
 * generators do not share the API's event loop (autocannon: a worker thread; the paced load: a child process).
 * Goal: p99 < 10 ms, 0 non-2xx, judged on the paced load.
 *   node -r @swc-node/register bench/mixed-load.bench.ts [seconds=60]   → bench/results/mixed-load.json
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { walletEvents } from '@dob/auth';
import { createReadQueries, openReadModelStorage } from '@dob/read-models';
import { InProcessRateLimiter, RedisRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { createPgliteWorkerDatabase, createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { createApiApp } from '../libs/api-http/src/bootstrap';
import { createApiAuth } from '../libs/api-http/src/access';
import { accountAddr, contractAddr } from '../libs/read-models/src/testing/chain-scenario';
import { startReadModels } from '../libs/read-models/src/testing/read-model-harness';
import { pacedLoad } from './paced-load';
import { recordEventLoop } from './event-loop-record';
import { benchWorld } from './read-api.world';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

export const RATE = 1_000;
const CONNECTIONS = 20;

/** The mix: each connection cycles through these paths in order (so each is 1/5 of the load). */
export function mixedReadPaths(pool: string): string[] {
  return [
    '/api/agent/pools?limit=20',
    `/api/agent/pools/${pool}`,
    '/api/agent/marketplace/listings?limit=20&sort=price_asc',
    `/api/agent/marketplace/stats/${pool}`,
    '/api/agent/portfolio/holdings',
  ];
}

export interface MixedLoadResult {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly latencyMs: { p50: number; p90: number; p99: number; p99_9: number; max: number; mean: number };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly loadAverage1mAfter: number;
}

/** `seconds` of the mix at `rate` req/s against `base` (http://host:port), with the API key on every request. */
export async function mixedReadLoad(base: string, key: string, paths: string[], seconds: number, rate = RATE): Promise<MixedLoadResult> {
  const r = await autocannon({
    url: base,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    overallRate: rate,
    workers: 1,
    headers: { 'x-api-key': key },
    requests: paths.map((path) => ({ method: 'GET' as const, path })),
  });
  const l = r.latency as typeof r.latency & { p99_9: number };
  return {
    requests: r.requests.total,
    requestsPerSecond: +r.requests.average.toFixed(0),
    latencyMs: { p50: l.p50, p90: l.p90, p99: l.p99, p99_9: l.p99_9, max: l.max, mean: +l.mean.toFixed(2) },
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    loadAverage1mAfter: +os.loadavg()[0]!.toFixed(2),
  };
}

async function measure(store: 'pglite' | 'postgres', seconds: number): Promise<object> {
  const schema = `bench_mixed_${randomBytes(4).toString('hex')}`;
  const db = store === 'postgres' ? await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema }) : await createPgliteWorkerDatabase(); // on its own thread, as npm start opens it
  const storage = await openReadModelStorage({ db });
  const models = await startReadModels(db, walletEvents, storage.store);
  await models.append(benchWorld().streamAppends());
  const rateLimiter = store === 'postgres' ? new RedisRateLimiter({ prefix: `bench:rl:${schema}:` }) : new InProcessRateLimiter();
  const auth = await createApiAuth({ db, events: models.store, rateLimiter, jwt: { secret: 'bench' } });
  const readCache = await storage.openCachedReader();
  const app = await createApiApp(
    { health: new HealthRegistry(), auth, read: { queries: createReadQueries({ reader: readCache.reader }), changes: readCache.changes } },
    { logger: false },
  );
  try {
    // A holder of every pool, so the portfolio is not empty; tier high enough that the load is never refused.
    const { key, record } = await auth.keys.createKey(accountAddr('holder-0'), { label: 'bench', scopes: ['read'], origin: 'key_management' });
    await auth.keys.setRateLimit(record.keyId, 1_000_000);
    await models.runner.stop(); // read models are complete; its polling would share PGlite's one connection
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const paths = mixedReadPaths(contractAddr('bench-pool-7'));
    for (const p of paths) {
      const r = await fetch(base + p, { headers: { 'x-api-key': key } });
      if (r.status !== 200) throw new Error(`${p} answered ${r.status}: ${await r.text()}`);
    }
    await mixedReadLoad(base, key, paths, 5); // warm-up (JIT, caches)
    // The goal is judged on the paced load (one request every ms, latency from its due time); autocannon's
    // overallRate sends each second's quota in a burst from 20 connections, so its row is the burst case.
    const serverLoop = recordEventLoop();
    const paced = await pacedLoad({ base, paths, headers: { 'x-api-key': key }, rate: RATE, seconds, connections: CONNECTIONS, warmupSeconds: 3 });
    const serverDuringPaced = serverLoop(); // includes the generator's 3 s of warm-up
    const burst = await mixedReadLoad(base, key, paths, seconds);
    return { readModelsAndKeys: store, limiter: store === 'postgres' ? 'redis' : 'in-process', paths, paced, serverDuringPaced, burstsPerSecond: burst };
  } finally {
    await app.close();
    await auth.close();
    await readCache.close();
    await models.close();
    await storage.close();
    if (store === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  }
}

export async function run(seconds = Number(process.argv[2] ?? 60)): Promise<object> {
  const machine = startMachineRecord();
  const results: Record<string, object> = {};
  for (const store of ['pglite', 'postgres'] as const) results[store] = await measure(store, seconds);
  const result = {
    benchmark: 'mixed-load',
    at: new Date().toISOString(),
    machine: machine(
      'paced load in a child process, autocannon in a worker thread of the API process; PostgreSQL and Redis local; the load average says how busy the machine was',
    ),
    parameters: {
      seconds,
      rate: RATE,
      connections: CONNECTIONS,
      pipelining: 1,
      world: `${benchWorld().size} events (bench/read-api.world.ts)`,
      paced: 'bench/paced-load.ts in a child process: request n due at start + n ms, latency from its due time; 3 s of the same load first, not recorded',
      burstsPerSecond: 'autocannon overallRate in a worker thread: each connection sends its quota of every second back to back, then idles',
    },
    goal: { p99Ms: 10, non2xx: 0 },
    results,
  };
  writeBenchResult('mixed-load', result);
  return result;
}

runWhenMain(module, () => run());
