/**
 * Child process of exactly-once.int-spec.ts: runs the ledger projection on PostgreSQL and SIGKILLs itself in the
 * middle of a batch's transaction (while its reducer runs, the checkpoint row locked) once KILL_AFTER events have
 * been handed to apply. Counted by event id: a large batch hands each event to apply more than once (speculative
 * passes that learn what to prefetch, documents/prefetch.ts), all inside the same transaction.
 * MODE=rebuild: rebuilds it blue/green instead, in catch-up pages of 200 whose batches wait in a build written out
 * every BUILD_EVENTS (SqlBuild, kept whatever it saves), so the kill lands among buffered batches, reduced ahead, or during a write-out.
 */
import { createSqlEventStore } from '@dob/event-store';
import { createPostgresDatabase } from '@dob/sql';
import { ProjectionRunner } from '../runner/projection-runner';
import { createSqlReadModelStore } from '../sql/sql-read-model-store';
import { ledgerProjection } from './ledger.projection';

async function main(): Promise<void> {
  const killAfter = Number(process.env.KILL_AFTER);
  const db = await createPostgresDatabase({ connectionString: process.env.DATABASE_URL!, schema: process.env.SCHEMA! });
  const store = await createSqlEventStore(db, { pollIntervalMs: 20 });
  const handed = new Set<string>();
  const ledger = ledgerProjection({
    beforeApply: (e) => {
      handed.add(e.id);
      if (handed.size >= killAfter) process.kill(process.pid, 'SIGKILL');
    },
  });
  if (process.env.MODE === 'rebuild') {
    const readModels = createSqlReadModelStore(db, { buildLimits: { events: Number(process.env.BUILD_EVENTS), documents: 100_000, minSaving: 0 } });
    await new ProjectionRunner(store, readModels, [ledger], { batchSize: 100, catchUpBatchSize: 200 }).rebuild(ledger.name);
    throw new Error('the rebuild finished before the kill');
  }
  const runner = new ProjectionRunner(store, createSqlReadModelStore(db), [ledger], {
    batchSize: Number(process.env.BATCH ?? 100),
  });
  await runner.start();
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
