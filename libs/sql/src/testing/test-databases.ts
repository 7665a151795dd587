import { randomBytes } from 'node:crypto';
import type { SqlDatabase } from '../sql.port';
import { createPgliteDatabase } from '../pglite/pglite-database';
import { createPgliteWorkerDatabase } from '../pglite/pglite-worker-database';
import { createPostgresDatabase } from '../postgres/postgres-database';

/** The real PostgreSQL every machine of this project runs (trust auth, database `test`); override with TEST_DATABASE_URL. */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

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
      create: () => createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: `t_${randomBytes(6).toString('hex')}` }),
    },
  ];
}
