/**
 * Read API throughput and latency: GET /pools and GET /marketplace/listings served by the real stack (API-key gate,
 * validation pipe, cached query services over projected read models) with the read models on embedded PGlite, on
 * PostgreSQL and on MongoDB (FerretDB here; keys and events on PGlite), each beside a raw Fastify handler that
 * returns the same JSON bytes, in the same run. autocannon, no pipelining.
 * `api` is the API as the apps compose it (with the response cache wherever the read models push changes: SQL);
 * on PGlite, GET /pools is also measured with that cache off, its query dispatched through the QueryBus and, in the
 * same app, straight to the handler (what the bus costs per request).
 *   node -r @swc-node/register bench/read-api.bench.ts   → bench/results/read-api.json
 *   READ_API_STORES=mongodb … → one store only, bench/results/read-api-mongodb.json
 */
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { QueryBus } from '@nestjs/cqrs';
import { walletEvents } from '@dob/auth';
import { testMongoUrl } from '../libs/mongo/src/testing/test-mongo';
import { createReadQueries, openReadModelStorage } from '@dob/read-models';
import { InProcessRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { createPgliteWorkerDatabase, type SqlDatabase } from '@dob/sql';
import { createTestPostgresDatabase } from '../libs/sql/src/testing/test-databases';
import { createApiApp } from '../libs/api-http/src/bootstrap';
import { createApiAuth } from '../libs/api-http/src/access';
import { ListPoolsQuery, poolsHandlers } from '../libs/api-http/src/pools/pools.handlers';
import { accountAddr } from '../libs/read-models/src/testing/chain-scenario';
import { startReadModels } from '../libs/read-models/src/testing/read-model-harness';
import { HOLDERS_PER_POOL, POOLS, benchWorld } from './read-api.world';
import { closedLoopRun } from './closed-loop';
import { pairedRounds } from './paired-rounds';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

const DURATION_S = 5;
/** API and raw handler measured ROUNDS times each per path, alternating (bench/paired-rounds.ts). */
const ROUNDS = 5;
const CONNECTIONS = 10;

const cannon = (url: string, headers: Record<string, string>) => closedLoopRun(url, headers, { connections: CONNECTIONS, durationSeconds: DURATION_S });

type Store = 'pglite' | 'postgres' | 'mongodb';

/**
 * GET /pools through Nest with the query dispatched on the QueryBus, and in the same app with the bus's execute
 * replaced by a direct call of the app's ListPoolsQuery handler instance (the only query GET /pools sends): the difference
 * is the bus.
 * Alternated twice (bus, direct, bus, direct) against the machine's drift; then the dispatch alone, timed in loops.
 */
async function busOrDirect(app: NestFastifyApplication, key: string, path: string): Promise<object> {
  await app.listen(0, '127.0.0.1');
  const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}${path}`;
  const bus = app.get(QueryBus);
  const viaBus = bus.execute.bind(bus);
  const listPools = app.get<{ execute(q: ListPoolsQuery): Promise<unknown> }>(
    poolsHandlers.find((h) => h.name === 'ListPoolsQueryHandler')!,
    { strict: false },
  );
  const direct = ((q: ListPoolsQuery) => listPools.execute(q)) as typeof bus.execute;
  await cannon(url, { 'x-api-key': key }); // warm-up
  const runs: { throughQueryBus: Awaited<ReturnType<typeof cannon>>[]; handlerCalledDirectly: Awaited<ReturnType<typeof cannon>>[] } = {
    throughQueryBus: [],
    handlerCalledDirectly: [],
  };
  for (let round = 0; round < 2; round++) {
    bus.execute = viaBus;
    runs.throughQueryBus.push(await cannon(url, { 'x-api-key': key }));
    bus.execute = direct;
    runs.handlerCalledDirectly.push(await cannon(url, { 'x-api-key': key }));
  }
  bus.execute = viaBus;
  const sum = (r: { requestsPerSecond: number }[]) => r.reduce((a, x) => a + x.requestsPerSecond, 0);
  const query = new ListPoolsQuery({ page: 1, limit: 20, sort: 'created_desc' });
  const perDispatch = async (execute: (q: object) => Promise<unknown>) => {
    const n = 5_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await execute(query);
    return ((performance.now() - t0) / n) * 1000;
  };
  // Alternating rounds, the fastest of each kept: other processes on the machine only ever add time.
  const best = { throughQueryBus: Infinity, handlerCalledDirectly: Infinity };
  for (let round = 0; round < 8; round++) {
    best.throughQueryBus = Math.min(best.throughQueryBus, await perDispatch(viaBus));
    best.handlerCalledDirectly = Math.min(best.handlerCalledDirectly, await perDispatch(direct));
  }
  const microseconds = { throughQueryBus: +best.throughQueryBus.toFixed(2), handlerCalledDirectly: +best.handlerCalledDirectly.toFixed(2) };
  return {
    path,
    ...runs,
    busCostRatio: +(sum(runs.throughQueryBus) / sum(runs.handlerCalledDirectly)).toFixed(3),
    listPoolsDispatchMicroseconds: microseconds,
  };
}

async function openStore(store: Store): Promise<SqlDatabase> {
  return store === 'postgres'
    ? createTestPostgresDatabase() // a schema of its own, dropped when closed
    : createPgliteWorkerDatabase(); // on its own thread, as npm start opens it; PGlite also keeps the events and keys when the read models are in MongoDB
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
  const queries = createReadQueries({ reader: readCache.reader });
  const app: NestFastifyApplication = await createApiApp(
    { health: new HealthRegistry(), auth, read: { queries, changes: readCache.changes } },
    { logger: false },
  );
  // The same API without the response cache (every request through Nest and the query bus), PGlite only.
  const uncached = store === 'pglite' ? await createApiApp({ health: new HealthRegistry(), auth, read: { queries } }, { logger: false }) : undefined;
  const raw = Fastify();
  try {
    // Measure serving, not refusing: a key's ceiling is 1,000,000 requests a minute, which a run of 40k+ req/s passes
    // within the minute (earlier runs answered up to 221,472 requests 429, cheaply, which flattered the API), so each
    // API run (warm-up, rounds, the bus comparison) takes a key of its own.
    const paths = { pools: '/api/agent/pools?limit=20', listings: '/api/agent/marketplace/listings?limit=20&sort=price_asc' };
    const keys: string[] = [];
    for (let i = 0; i < Object.keys(paths).length * (ROUNDS + 1) + 1; i++) {
      const { key: k, record } = await auth.keys.createKey(accountAddr(`bench-agent-${i}`), { label: 'bench', scopes: ['read'], origin: 'key_management' });
      await auth.keys.setRateLimit(record.keyId, 1_000_000);
      keys.push(k);
    }
    const key = keys.pop()!;
    const nextKey = () => keys.pop() ?? key;
    await models.runner.stop(); // read models are complete; its polling would share PGlite's one connection
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
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
      await cannon(`${base}${p}`, { 'x-api-key': nextKey() }); // warm-up (JIT, query plans)
      const paired = await pairedRounds(
        ROUNDS,
        () => cannon(`${base}${p}`, { 'x-api-key': nextKey() }),
        () => cannon(`${rawBase}/raw/${name}`, {}),
        (r) => r.requestsPerSecond,
      );
      // A refused request is answered cheaply: a round with any would flatter the API, so it voids the run.
      const refused = paired.rounds.reduce((n, r) => n + r.measured.non2xx + r.baseline.non2xx, 0);
      if (refused > 0) throw new Error(`${p}: ${refused} non-2xx answers in the measured rounds; the ratio would not be comparable`);
      results[name] = {
        path: p,
        responseBytes: Buffer.byteLength(bodies[name]!),
        /** Best of ROUNDS runs each (bench/paired-rounds.ts); every round's pair below. */
        api: paired.best.measured,
        rawFastifySameJson: paired.best.baseline,
        throughputRatio: paired.best.ratio,
        medianRoundRatio: paired.medianRatio,
        rounds: paired.rounds.map((r) => ({
          api: r.measured.requestsPerSecond,
          raw: r.baseline.requestsPerSecond,
          ratio: r.ratio,
          cpuMicrosPerRequest: { api: r.measured.cpuMicrosPerRequest, raw: r.baseline.cpuMicrosPerRequest },
        })),
      };
    }
    if (uncached) results.poolsWithoutResponseCache = await busOrDirect(uncached, key, paths.pools);
    return results;
  } finally {
    await raw.close();
    await uncached?.close();
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
  const all: readonly Store[] = ['pglite', 'postgres', 'mongodb'];
  const stores = process.env.READ_API_STORES ? all.filter((s) => process.env.READ_API_STORES!.split(',').includes(s)) : all;
  for (const store of stores) results[store] = await measure(store);
  const result = {
    benchmark: 'read-api',
    at: new Date().toISOString(),
    machine: machine(
      'the load average says how busy the machine was; autocannon in the same process as both servers; read models on embedded PGlite (single connection), ' +
        'on the local PostgreSQL server and on FerretDB 1.24 (MongoDB wire protocol, itself on that PostgreSQL)',
    ),
    parameters: {
      durationSeconds: DURATION_S,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      pipelining: 1,
      pools: POOLS,
      listings: POOLS * HOLDERS_PER_POOL,
      events: benchWorld().size,
    },
    results,
  };
  writeBenchResult(stores.length === all.length ? 'read-api' : `read-api-${stores.join('-')}`, result);
  return result;
}

runWhenMain(module, run);
