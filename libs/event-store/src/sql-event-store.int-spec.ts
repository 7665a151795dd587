import { testDatabases } from '@dob/sql';
import { eventStoreContract } from './event-store.contract';
import { createSqlEventStore } from './sql/sql-event-store';
import { migrateEventStore } from './sql/migrations';

describe.each(testDatabases())('SQL event store on $name', (factory) => {
  eventStoreContract(async () => {
    const db = await factory.create();
    return {
      open: (options) => createSqlEventStore(db, options),
      dispose: () => db.close(),
    };
  });

  it('migrates once and is idempotent on restart', async () => {
    const db = await factory.create();
    try {
      expect(await migrateEventStore(db)).toEqual([1, 2, 3]);
      expect(await migrateEventStore(db)).toEqual([]);
      const store = await createSqlEventStore(db);
      await store.close();
      const { rows } = await db.query<{ version: number }>('SELECT version FROM es_schema_migrations');
      expect(rows.map((r) => Number(r.version)).sort()).toEqual([1, 2, 3]);
    } finally {
      await db.close();
    }
  });
});
