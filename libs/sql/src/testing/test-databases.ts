import { randomBytes } from 'node:crypto';
import type { SqlDatabase } from '../sql.port';
import { createPgliteDatabase } from '../pglite/pglite-database';
import { createPgliteWorkerDatabase } from '../pglite/pglite-worker-database';
import { createPostgresDatabase, type PostgresOptions } from '../postgres/postgres-database';

/** The real PostgreSQL every machine of this project runs (trust auth, database `test`); override with TEST_DATABASE_URL. */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const TEST_RUN = process.env.DOB_TEST_RUN ?? Date.now().toString(36);

/**
 * A schema of a test's own on the shared test server: `t_<run>_<random>`, where `<run>` is the test run's start in
 * base-36 milliseconds (DOB_TEST_RUN, set by Jest's global setup, test/test-schemas.js; this process's start otherwise). The
 * run's teardown drops its own schemas by that prefix, and the next run's setup drops those of runs older than a few
 * hours (killed before their teardown): without it every `npm test` left ~700 schemas, a gigabyte, on each cluster.
 */
export function testSchemaName(): string {
  return `t_${TEST_RUN}_${randomBytes(4).toString('hex')}`;
}

/**
 * A PostgreSQL database on a schema of its own (testSchemaName) that is dropped when the database is closed, like
 * createTestMongoDatabase's. The drop waits at most 2 s for locks (another connection still in the schema) and gives
 * up quietly: the run's teardown drops what is left.
 */
export async function createTestPostgresDatabase(options: Partial<Omit<PostgresOptions, 'schema'>> = {}): Promise<SqlDatabase> {
  const schema = testSchemaName();
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, ...options, schema });
  const close = db.close.bind(db);
  db.close = async () => {
    await db
      .transaction(async (tx) => {
        await tx.exec(`SET LOCAL lock_timeout = '2s'`);
        await tx.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      })
      .catch(() => undefined);
    await close();
  };
  return db;
}

export interface TestDatabaseFactory {
  readonly name: 'pglite' | 'pglite-worker' | 'postgres';
  /** A fresh, isolated database (own schema on PostgreSQL, own in-memory instance on PGlite). */
  create(): Promise<SqlDatabase>;
}

/**
 * Contract suites run once per adapter: `describe.each(testDatabases())`. `pgliteWorker` adds embedded PGlite on its
 * own thread (what the apps open on a data folder) for the suites of the port itself and of the stores that lean on
 * its transactions, COPY and LISTEN hardest.
 */
export function testDatabases(options: { pgliteWorker?: boolean } = {}): TestDatabaseFactory[] {
  return [
    { name: 'pglite', create: () => createPgliteDatabase() },
    ...(options.pgliteWorker ? [{ name: 'pglite-worker' as const, create: () => createPgliteWorkerDatabase() }] : []),
    {
      name: 'postgres',
      create: () => createTestPostgresDatabase(),
    },
  ];
}
