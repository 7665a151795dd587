/**
 * Writes a large, realistic chain history (libs/read-models/src/testing/large-history.ts) into an event store,
 * reproducible from a seed, through the store's batch append (appendMany). Bench and operator use: fill a
 * database, then time `npm run ops -- projections rebuild <name>` over it.
 *   DATABASE_URL=postgres://… node -r @swc-node/register bench/generate-history.ts [events] [seed] [pools] [wallets]
 *   DATA_DIR=./.data-large   node -r @swc-node/register bench/generate-history.ts …   (PGlite in $DATA_DIR/pglite)
 * Defaults: LARGE_HISTORY (1,000,000 events, seed 33, 3,000 pools, 50,000 wallets). Append to an empty store:
 * the history's ids are deterministic, so writing it twice skips the events already stored.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { createPgliteDatabase, createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { LARGE_HISTORY, writeLargeHistory } from '../libs/read-models/src/testing/large-history';

async function main(): Promise<void> {
  const [events, seed, pools, wallets] = process.argv.slice(2).map(Number);
  const options = {
    seed: seed || LARGE_HISTORY.seed,
    events: events || LARGE_HISTORY.events,
    pools: pools || LARGE_HISTORY.pools,
    wallets: wallets || LARGE_HISTORY.wallets,
  };
  const url = process.env.DATABASE_URL;
  const dataDir = join(process.env.DATA_DIR ?? './.data', 'pglite');
  if (!url) mkdirSync(dataDir, { recursive: true });
  // SCHEMA: a PostgreSQL schema of its own (created if missing), e.g. beside other data in a shared database.
  const schema = process.env.SCHEMA ? { schema: process.env.SCHEMA } : {};
  const db: SqlDatabase = url ? await createPostgresDatabase({ connectionString: url, ...schema }) : await createPgliteDatabase({ dataDir, ...schema });
  const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
  const started = performance.now();
  let shown = 0;
  try {
    const written = await writeLargeHistory(store, options, (n) => {
      if (n - shown < 50_000) return;
      shown = n;
      const s = (performance.now() - started) / 1000;
      process.stderr.write(`\r${n} / ${options.events} events, ${Math.round(n / s)} ev/s   `);
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      JSON.stringify({
        ...options,
        store: url ? 'postgres' : 'pglite',
        ...written,
        seconds: +seconds.toFixed(1),
        eventsPerSecond: Math.round(written.events / seconds),
      }),
    );
  } finally {
    await store.close();
    await db.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
