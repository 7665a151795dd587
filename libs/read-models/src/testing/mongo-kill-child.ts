/**
 * Child process of mongo/exactly-once.int-spec.ts: projects the ledger and every read model into MongoDB (FerretDB)
 * from an event store on PostgreSQL, and SIGKILLs itself at the KILL_AT-th time a batch commit reaches KILL_STEP
 * (after a random 0..KILL_DELAY_MS more, so the kill lands inside the writes that follow). MODE=follow: the runner
 * follows every projection live; MODE=rebuild: it builds them blue/green, one after another, resuming what an earlier
 * child left unbuilt (the rebuild's write path, writeUnserved). Exits 3 if it finished without being killed.
 */
import { randomInt } from 'node:crypto';
import { createSqlEventStore } from '@dob/event-store';
import { openMongoDatabase } from '@dob/mongo';
import { ProjectionRunner, createMongoReadModelStore, type CommitStep } from '@dob/projections';
import { createPostgresDatabase } from '@dob/sql';
import { ledgerProjection } from '../../../projections/src/testing/ledger.projection';
import { readModelProjections } from '../projections';
import { buildUnbuilt } from './build-unbuilt';

/** Small rebuild batches: many commits per projection for the kills to land in. */
const REBUILD_BATCH = 50;

async function main(): Promise<void> {
  const step = process.env.KILL_STEP as CommitStep;
  const at = Number(process.env.KILL_AT);
  const delay = Number(process.env.KILL_DELAY_MS ?? 0);
  const mongo = await openMongoDatabase(process.env.MONGODB_URL!, { dbName: process.env.MONGODB_DB! });
  const db = await createPostgresDatabase({ connectionString: process.env.DATABASE_URL!, schema: process.env.SCHEMA! });
  const events = await createSqlEventStore(db, { pollIntervalMs: 20 });
  let seen = 0;
  const kill = () => process.kill(process.pid, 'SIGKILL');
  const rebuilding = process.env.MODE === 'rebuild';
  const store = createMongoReadModelStore(mongo, {
    // A build writes its batches out every few of them here (a long history's default is 100,000 events).
    ...(rebuilding ? { buildFlush: { events: REBUILD_BATCH * 2, documents: 100_000 } } : {}),
    onStep: (s) => {
      if (s !== step || ++seen !== at) return;
      if (delay > 0) setTimeout(kill, randomInt(0, delay + 1));
      else kill();
    },
  });
  const definitions = [ledgerProjection(), ...readModelProjections];
  if (rebuilding) {
    await buildUnbuilt(new ProjectionRunner(events, store, definitions, { batchSize: 50, catchUpBatchSize: REBUILD_BATCH }), store, definitions);
  } else {
    const runner = new ProjectionRunner(events, store, definitions, { batchSize: 50 });
    await runner.start();
    await runner.waitUntilCaughtUp(300_000);
  }
  process.exit(3);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
