/**
 * Read API throughput and latency: GET /pools and GET /marketplace/listings served by the real stack (API-key gate,
 * validation pipe, cached query services over projected read models) with the read models on embedded PGlite, on
 * PostgreSQL and on MongoDB (FerretDB here; keys and events on PGlite), each beside a raw Fastify handler that
 * returns the same JSON bytes, in the same run. autocannon, no pipelining.
 *   node -r @swc-node/register bench/read-api.bench.ts   → bench/results/read-api.json
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { walletEvents } from '@dob/auth';
import { testMongoUrl } from '@dob/mongo';
import { createReadQueries, openReadModelStorage } from '@dob/read-models';
import { InProcessRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { TEST_POSTGRES_URL, createPgliteDatabase, createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { createApiApp } from '../apps/api/src/bootstrap';
import { createApiAuth } from '../apps/api/src/auth';
import { accountAddr } from '../libs/read-models/src/testing/chain-scenario';
import { startReadModels } from '../libs/read-models/src/testing/read-model-harness';
import { HOLDERS_PER_POOL, POOLS, benchWorld } from './read-api.world';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

const DURATION_S = 8;
const CONNECTIONS = 10;

async function cannon(url: string, headers: Record<string, string>) {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, pipelining: 1, duration: DURATION_S });
  return {
    requestsPerSecond: +r.requests.average.toFixed(0),
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99, mean: +r.latency.mean.toFixed(2) },
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

type Store = 'pglite' | 'postgres' | 'mongodb';

async function openStore(store: Store): Promise<SqlDatabase> {
  return store === 'postgres'
    ? createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: `bench_read_api_${Date.now()}` })
    : createPgliteDatabase({}); // PGlite also keeps the events and keys when the read models are in MongoDB
}

/** One store: the world projected, the API (gate, validation, cached query services) and the raw handler. */
async function measure(store: Store): Promise<Record<string, object>> {
  const db = await openStore(store);
  const mongo = store === 'mongodb' ? testMongoUrl() : undefined;
  // As the apps compose them: read models in the SQL database, or in MongoDB; the API reads through a cache.
  const storage = await openReadModelStorage({ db, mongodbUrl: mongo?.url });
  const models = await startReadModels(db, walletEvents, storage.store);
  await models.append(benchWorld().streamAppends());
  const auth = await createApiAuth({ db, events: models.store, rateLimiter: new InProcessRateLimiter(), jwt: { secret: 'bench' } });
  const readCache = await storage.openCachedReader();
  const app: NestFastifyApplication = await createApiApp({ health: new HealthRegistry(), auth, read: { queries: createReadQueries({ reader: readCache.reader }) } }, { logger: false });
  const raw = Fastify();
  try {
    const { key, record } = await auth.keys.createKey(accountAddr('bench-agent'), { label: 'bench', scopes: ['read'], origin: 'key_management' });
    await auth.keys.setRateLimit(record.keyId, 1_000_000); // measure serving, not refusing
    await models.runner.stop(); // read models are complete; its polling would share PGlite's one connection
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const paths = { pools: '/api/agent/pools?limit=20', listings: '/api/agent/marketplace/listings?limit=20&sort=price_asc' };
    const bodies: Record<string, string> = {};
    for (const [name, p] of Object.entries(paths)) {
      const r = await fetch(`${base}${p}`, { headers: { 'x-api-key': key } });
      if (r.status !== 200) throw new Error(`${p} answered ${r.status}`);
      bodies[name] = await r.text();
      raw.get(`/raw/${name}`, async (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(bodies[name]));
    }
    await raw.listen({ port: 0, host: '127.0.0.1' });
    const rawBase = `http://127.0.0.1:${(raw.server.address() as { port: number }).port}`;
    const results: Record<string, object> = {};
    for (const [name, p] of Object.entries(paths)) {
      await cannon(`${base}${p}`, { 'x-api-key': key }); // warm-up (JIT, query plans)
      const api = await cannon(`${base}${p}`, { 'x-api-key': key });
      const rawRun = await cannon(`${rawBase}/raw/${name}`, {});
      results[name] = {
        path: p,
        responseBytes: Buffer.byteLength(bodies[name]!),
        api,
        rawFastifySameJson: rawRun,
        throughputRatio: +(api.requestsPerSecond / rawRun.requestsPerSecond).toFixed(3),
      };
    }
    return results;
  } finally {
    await raw.close();
    await app.close();
    await auth.close();
    await readCache.close();
    await models.close();
    await storage.close();
    await db.close();
    await mongo?.drop();
  }
}

export async function run(): Promise<object> {
  const machine = startMachineRecord();
  const results: Record<string, object> = {};
  for (const store of ['pglite', 'postgres', 'mongodb'] as const) results[store] = await measure(store);
  const result = {
    benchmark: 'read-api',
    at: new Date().toISOString(),
    machine: machine(
      'shared 2-core machine (other engineers running); autocannon in the same process as both servers; read models on embedded PGlite (single connection), ' +
        'on the local PostgreSQL server and on FerretDB 1.24 (MongoDB wire protocol, itself on that PostgreSQL)',
    ),
    parameters: { durationSeconds: DURATION_S, connections: CONNECTIONS, pipelining: 1, pools: POOLS, listings: POOLS * HOLDERS_PER_POOL, events: benchWorld().size },
    results,
  };
  writeBenchResult('read-api', result);
  return result;
}

runWhenMain(module, run);
