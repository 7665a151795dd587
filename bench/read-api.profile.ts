/**
 * Where a read-API request spends its time: the same world and app as bench/read-api.bench.ts, then timed loops of
 * each part alone (key lookup, rate limiter, each query service, the whole HTTP request) and a query count per
 * request. Run under `node --cpu-prof` to see the JavaScript side.
 *   node -r @swc-node/register bench/read-api.profile.ts [pglite|postgres]
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { walletEvents } from '@dob/auth';
import { createReadQueries, createReadResultCache } from '@dob/read-models';
import { InProcessRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { createTestPostgresDatabase } from '../libs/sql/src/testing/test-databases';
import { createApiApp } from '../libs/api-http/src/bootstrap';
import { createApiAuth } from '../libs/api-http/src/access';
import { accountAddr } from '../libs/read-models/src/testing/chain-scenario';
import { startReadModels } from '../libs/read-models/src/testing/read-model-harness';
import { benchWorld } from './read-api.world';

async function timed(label: string, n: number, fn: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < Math.min(20, n); i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(`${label.padEnd(40)} ${((performance.now() - t0) / n).toFixed(3)} ms/op`);
}

/** Counts statements per call by wrapping the executor. */
function counting(db: SqlDatabase): { db: SqlDatabase; texts: string[]; params: (readonly unknown[] | undefined)[] } {
  const texts: string[] = [];
  const params: (readonly unknown[] | undefined)[] = [];
  const wrapped = Object.create(db) as SqlDatabase;
  wrapped.query = (text, p) => {
    texts.push(text);
    params.push(p);
    return db.query(text, p);
  };
  return { db: wrapped, texts, params };
}

async function main(): Promise<void> {
  const store = process.argv[2] ?? 'pglite';
  const db = store === 'postgres' ? await createTestPostgresDatabase() : await createPgliteDatabase({});
  const models = await startReadModels(db, walletEvents);
  const world = benchWorld();
  await models.append(world.streamAppends());
  await models.runner.stop();
  const counted = counting(db);
  const auth = await createApiAuth({ db: counted.db, events: models.store, rateLimiter: new InProcessRateLimiter(), jwt: { secret: 'bench' } });
  // NO_CACHE=1 measures the query services against the database on every request.
  const readCache = await createReadResultCache(counted.db);
  const queries = createReadQueries({ db: process.env.NO_CACHE ? counted.db : readCache.db });
  // NO_RESPONSE_CACHE=1 profiles every request through Nest (the response cache off).
  const changes = process.env.NO_CACHE || process.env.NO_RESPONSE_CACHE ? undefined : () => readCache.generation;
  const app = await createApiApp({ health: new HealthRegistry(), auth, read: { queries, changes } }, { logger: false });
  const { key, record } = await auth.keys.createKey(accountAddr('bench-agent'), { label: 'bench', scopes: ['read'], origin: 'key_management' });
  await auth.keys.setRateLimit(record.keyId, 1_000_000);
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const n = Number(process.argv[3] ?? 300);
  try {
    for (const [name, url] of [
      ['pools', '/api/agent/pools?limit=20'],
      ['listings', '/api/agent/marketplace/listings?limit=20&sort=price_asc'],
    ] as const) {
      counted.texts.length = 0;
      counted.params.length = 0;
      await fetch(`${base}${url}`, { headers: { 'x-api-key': key } }).then((r) => r.text());
      console.log(`${name}: ${counted.texts.length} statements per request`);
      const statements = counted.texts.map((t, i) => [t, counted.params[i]] as const);
      for (const [t, p] of statements) {
        console.log(`   ${t.replace(/\s+/g, ' ').slice(0, 140)}`);
        if (process.env.EXPLAIN) {
          const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${t}`, p);
          console.log(plan.rows.map((r) => `      ${r['QUERY PLAN']}`).join('\n'));
        }
      }
    }
    await timed('authenticate (key lookup)', n, () => auth.authenticator.authenticate(key));
    await timed('rate limiter consume', n, () => auth.rateLimiter.consume('key:x', 1_000_000));
    await timed('tokens.lookup', n, () => queries.pools['ctx'].tokens.lookup());
    await timed('pools.list (query service)', n, () => queries.pools.list({ page: 1, limit: 20, sort: 'created_desc' }));
    await timed('marketplace.listings (query service)', n, () => queries.marketplace.listings({ page: 1, limit: 20, sort: 'price_asc', status: 'active' }));
    await timed('HTTP /pools sequential', n, () => fetch(`${base}/api/agent/pools?limit=20`, { headers: { 'x-api-key': key } }).then((r) => r.text()));
    await timed('HTTP /listings sequential', n, () =>
      fetch(`${base}/api/agent/marketplace/listings?limit=20&sort=price_asc`, { headers: { 'x-api-key': key } }).then((r) => r.text()),
    );
    if (process.env.CPU_PROFILE) {
      // Only the HTTP requests are profiled (not the world's projection): 10 concurrent clients, like the bench.
      const session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      const url = process.env.CPU_PROFILE === 'listings' ? '/api/agent/marketplace/listings?limit=20&sort=price_asc' : '/api/agent/pools?limit=20';
      // The load comes from autocannon in another process (10 connections, like the bench), so the profile holds
      // the server's work only; the earlier in-process fetch loop put undici's client in the profile too.
      await new Promise<void>((resolve, reject) => {
        const args = [
          require.resolve('autocannon/autocannon.js'),
          '-c',
          '10',
          '-d',
          process.env.LOAD_SECONDS ?? '5',
          '-H',
          `x-api-key=${key}`,
          `${base}${url}`,
        ];
        execFile(process.execPath, args, (e) => (e ? reject(e) : resolve()));
      });
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(`/tmp/read-api-${process.env.CPU_PROFILE}.cpuprofile`, JSON.stringify(profile));
      session.disconnect();
    }
    await timed('HTTP /health sequential (no gate)', n, () => fetch(`${base}/health`).then((r) => r.text()));
  } finally {
    await app.close();
    await auth.close();
    await readCache.close();
    await models.close();
    await db.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
