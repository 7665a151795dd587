/**
 * Child process of mongo/exactly-once.int-spec.ts: projects the ledger and every read model into MongoDB (FerretDB)
 * from an event store on PostgreSQL, and SIGKILLs itself at the KILL_AT-th time a batch commit reaches KILL_STEP
 * (after a random 0..KILL_DELAY_MS more, so the kill lands inside the writes that follow). Exits 3 if it caught up
 * without being killed.
 */
import { randomInt } from 'node:crypto';
import { createSqlEventStore } from '@dob/event-store';
import { openMongoDatabase } from '@dob/mongo';
import { ProjectionRunner, createMongoReadModelStore, type CommitStep } from '@dob/projections';
import { createPostgresDatabase } from '@dob/sql';
import { ledgerProjection } from '../../../projections/src/testing/ledger.projection';
import { readModelProjections } from '../projections';

async function main(): Promise<void> {
  const step = process.env.KILL_STEP as CommitStep;
  const at = Number(process.env.KILL_AT);
  const delay = Number(process.env.KILL_DELAY_MS ?? 0);
  const mongo = await openMongoDatabase(process.env.MONGODB_URL!, { dbName: process.env.MONGODB_DB! });
  const db = await createPostgresDatabase({ connectionString: process.env.DATABASE_URL!, schema: process.env.SCHEMA! });
  const events = await createSqlEventStore(db, { pollIntervalMs: 20 });
  let seen = 0;
  const kill = () => process.kill(process.pid, 'SIGKILL');
  const store = createMongoReadModelStore(mongo, {
    onStep: (s) => {
      if (s !== step || ++seen !== at) return;
      if (delay > 0) setTimeout(kill, randomInt(0, delay + 1));
      else kill();
    },
  });
  const runner = new ProjectionRunner(events, store, [ledgerProjection(), ...readModelProjections], { batchSize: 50 });
  await runner.start();
  await runner.waitUntilCaughtUp(300_000);
  process.exit(3);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
