import { randomBytes } from 'node:crypto';
import { migrateSchema } from './migrate';
import { createPostgresDatabase } from './postgres/postgres-database';
import { TEST_POSTGRES_URL } from './test-databases';

const DDL = `CREATE TABLE IF NOT EXISTS racers (id text PRIMARY KEY); CREATE INDEX IF NOT EXISTS racers_id ON racers (id);`;

describe('migrateSchema on PostgreSQL', () => {
  it('lets processes starting together on a fresh database create the same tables', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    // Separate pools = separate sessions, like separate processes.
    const dbs = await Promise.all(Array.from({ length: 8 }, () => createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema })));
    try {
      for (let round = 0; round < 3; round++) {
        await dbs[0].exec(`DROP TABLE IF EXISTS racers`);
        await Promise.all(dbs.map((db) => migrateSchema(db, 'test.racers', DDL)));
      }
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });
});
