/**
 * Child process of lease-fencing.int-spec.ts: a projector of one SQL projection (`probe`) on PostgreSQL under a
 * lease, as the projector app runs it with several copies. The probe records, per applied event, the pid of the
 * process that applied it and the clock at that moment; each batch lingers APPLY_MS inside its transaction so a
 * pause can land mid-commit.
 */
import { createSqlEventStore } from '@dob/event-store';
import { LeaseKeeper, createSqlLeaseStore, leaseOwner } from '@dob/leases';
import { createPostgresDatabase } from '@dob/sql';
import type { SqlProjectionDefinition } from '../projection';
import { ProjectionRunner } from '../runner/projection-runner';
import { createSqlReadModelStore } from '../sql/sql-read-model-store';

export const probeProjection = (applyMs: number): SqlProjectionDefinition => ({
  name: 'probe',
  version: 1,
  eventTypes: [],
  tables: ['applied'],
  async setup(tx, tables) {
    await tx.exec(`CREATE TABLE ${tables.applied} (event_id text NOT NULL, pid int NOT NULL, at timestamptz NOT NULL)`);
  },
  async apply(tx, events, tables) {
    process.stdout.write(`applying ${events.length}\n`);
    await tx.query(`INSERT INTO ${tables.applied} (event_id, pid, at) SELECT id, $2, clock_timestamp() FROM unnest($1::text[]) AS id`, [
      events.map((e) => e.id),
      process.pid,
    ]);
    await new Promise((r) => setTimeout(r, applyMs));
  },
});

async function main(): Promise<void> {
  const db = await createPostgresDatabase({ connectionString: process.env.DATABASE_URL!, schema: process.env.SCHEMA! });
  const store = await createSqlEventStore(db, { pollIntervalMs: 20 });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const leases = new LeaseKeeper(
    createSqlLeaseStore(db),
    leaseOwner('probe'),
    { durationMs: Number(process.env.LEASE_DURATION_MS), heartbeatMs: Number(process.env.LEASE_HEARTBEAT_MS) },
    log,
  );
  const runner = new ProjectionRunner(store, createSqlReadModelStore<SqlProjectionDefinition>(db), [probeProjection(Number(process.env.APPLY_MS ?? 100))], {
    batchSize: 20,
    leases,
    log,
  });
  await runner.start();
  await leases.start();
  log('started');
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(2);
  });
}
