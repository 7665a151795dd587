import { migrateSchema } from './migrate';
import { createPostgresDatabase } from './postgres/postgres-database';
import { TEST_POSTGRES_URL, testSchemaName } from './testing/test-databases';

const DDL = `CREATE TABLE IF NOT EXISTS racers (id text PRIMARY KEY); CREATE INDEX IF NOT EXISTS racers_id ON racers (id);`;

describe('migrateSchema on PostgreSQL', () => {
  it('lets processes starting together on a fresh database create the same tables', async () => {
    const schema = testSchemaName();
    // Separate pools = separate sessions, like separate processes.
    const dbs = await Promise.all(Array.from({ length: 8 }, () => createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema })));
    try {
      for (let round = 0; round < 3; round++) {
        await dbs[0].exec(`DROP TABLE IF EXISTS racers; DROP TABLE IF EXISTS schema_migrations`);
        await Promise.all(dbs.map((db) => migrateSchema(db, 'test.racers', DDL)));
        expect((await dbs[1].query(`SELECT count(*)::int AS n FROM racers`)).rows).toEqual([{ n: 0 }]);
      }
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });

  it('takes no lock on the tables once applied, so a writer mid-transaction does not hold a starting process back', async () => {
    const schema = testSchemaName();
    const writer = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    const starter = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    try {
      await migrateSchema(writer, 'test.racers', DDL);
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let inserted!: () => void;
      const holding = new Promise<void>((r) => (inserted = r));
      // The writer holds RowExclusiveLock on racers; CREATE INDEX IF NOT EXISTS would wait for ShareLock behind it.
      const tx = writer.transaction(async (t) => {
        await t.query(`INSERT INTO racers (id) VALUES ('a')`);
        inserted();
        await released;
      });
      await holding;
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        migrateSchema(starter, 'test.racers', DDL).then(() => 'migrated'),
        new Promise((r) => (timer = setTimeout(() => r('blocked behind the writer'), 20_000))),
      ]);
      clearTimeout(timer); // a pending 20-s timer kept Jest's worker from exiting ("failed to exit gracefully")
      release();
      await tx;
      expect(outcome).toBe('migrated');
      // A changed text runs again (and is recorded again).
      await migrateSchema(starter, 'test.racers', `${DDL} CREATE INDEX IF NOT EXISTS racers_id2 ON racers (id);`);
      expect((await starter.query(`SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = $1 AND indexname = 'racers_id2'`, [schema])).rows).toEqual([
        { n: 1 },
      ]);
    } finally {
      await writer.close();
      await starter.close();
    }
  });
});
