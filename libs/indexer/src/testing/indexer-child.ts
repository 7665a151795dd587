/**
 * The indexer as a separate process, for crash tests and benchmarks: `node -r ./scripts/register.js indexer-child.ts`.
 * Env: RPC_URL, PG_URL + PG_SCHEMA (PostgreSQL store) or PGLITE_DIR, NETWORK_ID (default 9), START_LEDGER
 * (default 1), EXIT_WHEN_LIVE=1 to exit 0 once caught up, MAX_EVENTS_PER_APPEND (default the indexer's) for smaller windows. Prints one JSON line per status change on stdout
 * ({state, nextLedger, latestLedger}) and `{"halted": reason}` if it halts. Watches the devnet's stand-in wasm
 * hashes (DEVNET_STAND_IN_WASMS) with discovery on, like the all-in-one app.
 */
import { DEVNET_STAND_IN_WASMS } from '@dob/devnet';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { createPgliteWorkerDatabase, createPostgresDatabase } from '@dob/sql';
import { silentLogger } from '../ingestion/ingestion-status';
import { startNetworkIndexing } from '../indexer-runtime';

async function main(): Promise<void> {
  const env = process.env;
  const db = env.PG_URL
    ? await createPostgresDatabase({ connectionString: env.PG_URL, schema: env.PG_SCHEMA ?? 'public' })
    : await createPgliteWorkerDatabase({ dataDir: env.PGLITE_DIR }); // as the apps open their data folder (openStorage)
  const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
  const indexing = startNetworkIndexing(store, {
    rpcUrl: env.RPC_URL,
    networkId: Number(env.NETWORK_ID ?? 9),
    startLedger: Number(env.START_LEDGER ?? 1),
    knownWasms: DEVNET_STAND_IN_WASMS,
    pollIntervalMs: 200,
    ...(env.MAX_EVENTS_PER_APPEND ? { maxEventsPerAppend: Number(env.MAX_EVENTS_PER_APPEND) } : {}),
    scheduler: false,
    logger: silentLogger,
    onAlarm: (a) => console.log(JSON.stringify({ alarm: a.kind, message: a.message })),
  });
  let last = '';
  for (;;) {
    const s = indexing.status();
    const line = JSON.stringify({ state: s.state, nextLedger: s.nextLedger, latestLedger: s.latestLedger });
    if (line !== last) console.log((last = line));
    if (s.state === 'halted') {
      console.log(JSON.stringify({ halted: s.haltReason }));
      break;
    }
    if (s.state === 'live' && env.EXIT_WHEN_LIVE === '1') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await indexing.stop();
  await store.close();
  await db.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
