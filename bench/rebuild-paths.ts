/**
 * A first look at rebuild at volume (issue 33), not yet the `rebuild` bench with its raw-load baseline: writes a
 * generated history (large-history.ts, seed 33, 3,000 pools, 50,000 wallets) into a fresh PostgreSQL schema, then
 * rebuilds every read model blue/green (what `ops projections rebuild` runs) once per catch-up page size given —
 * the live size 500 is today's path before catch-up pages — and prints seconds, events/s and peak RSS (sampled).
 *   node -r @swc-node/register bench/rebuild-paths.ts [events=200000] [pageSizes=5000,500]
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { ProjectionRunner, createSqlReadModelStore } from '@dob/projections';
import { readModelProjections } from '@dob/read-models';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { LARGE_HISTORY, writeLargeHistory } from '../libs/read-models/src/testing/large-history';

async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 200_000);
  const pageSizes = (process.argv[3] ?? '5000,500').split(',').map(Number);
  const schema = `bench_rebuild_${randomBytes(4).toString('hex')}`;
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
  try {
    const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    const written = await writeLargeHistory(store, { ...LARGE_HISTORY, events });
    console.log(JSON.stringify({ written }));
    for (const catchUpBatchSize of pageSizes) {
      peak = 0;
      const runner = new ProjectionRunner(store, createSqlReadModelStore(db), readModelProjections, { catchUpBatchSize });
      let applied = 0;
      const t = performance.now();
      for (const def of readModelProjections) applied += (await runner.rebuild(def.name)).eventsApplied;
      const seconds = (performance.now() - t) / 1000;
      console.log(
        JSON.stringify({
          catchUpBatchSize,
          seconds: +seconds.toFixed(1),
          historyEventsPerSecond: Math.round(written.events / seconds),
          applicationsPerSecond: Math.round(applied / seconds),
          peakRssMiB: Math.round(peak / 2 ** 20),
        }),
      );
    }
    await store.close();
  } finally {
    clearInterval(sampler);
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
