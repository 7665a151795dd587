import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { createTestMongoDatabase } from '../../../mongo/src/testing/test-mongo';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { createMongoReadModelStore, type MongoReadModelStoreOptions } from '../mongo/mongo-read-model-store';
import type { ReadModelStore } from '../read-model-store.port';
import { createSqlReadModelStore } from '../sql/sql-read-model-store';

/** A read-model store under test, with the event store it projects from. */
export interface StoreUnderTest {
  readonly store: ReadModelStore;
  readonly events: EventStore;
  /** Physical tables / collections whose name starts with `prefix` (views excluded), sorted. */
  physicalNames(prefix: string): Promise<string[]>;
  /** The leading field of each secondary index of a physical table / collection (key and `_id` left out), sorted. */
  indexLeads(physical: string): Promise<string[]>;
  /** Rows / documents stored in a physical table / collection. */
  stored(physical: string): Promise<number>;
  /** Another store over the same databases, as a restarted process opens it (nothing cached). */
  reopened(options?: MongoReadModelStoreOptions): ReadModelStore;
  close(): Promise<void>;
}

export interface StoreFactory {
  readonly name: string;
  open(): Promise<StoreUnderTest>;
}

async function sqlStore(db: SqlDatabase): Promise<StoreUnderTest> {
  const events = await createSqlEventStore(db, { pollIntervalMs: 20 });
  return {
    store: createSqlReadModelStore(db),
    events,
    reopened: () => createSqlReadModelStore(db),
    async stored(physical) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${physical}"`);
      return rows[0]!.n;
    },
    async physicalNames(prefix) {
      const { rows } = await db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND starts_with(table_name, $1) ORDER BY 1`,
        [prefix],
      );
      return rows.map((r) => r.table_name);
    },
    async indexLeads(physical) {
      const { rows } = await db.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname NOT LIKE '%_pkey'`,
        [physical],
      );
      return rows.map((r) => /USING btree \((\w+)/.exec(r.indexdef)![1]!).sort();
    },
    async close() {
      await events.close();
      await db.close();
    },
  };
}

/** MongoDB read models (FerretDB here, in a database of the test's own) over an event store on PGlite. */
export async function mongoStore(options: MongoReadModelStoreOptions = {}): Promise<StoreUnderTest> {
  const mongo = await createTestMongoDatabase();
  const db = await createPgliteDatabase();
  const events = await createSqlEventStore(db, { pollIntervalMs: 20 });
  return {
    store: createMongoReadModelStore(mongo, { retireGraceMs: 0, ...options }),
    events,
    reopened: (again = {}) => createMongoReadModelStore(mongo, { retireGraceMs: 0, ...again }),
    stored: (physical) => mongo.db.collection(physical).countDocuments({}),
    async physicalNames(prefix) {
      const names = (await mongo.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
      return names.filter((n) => n.startsWith(prefix)).sort();
    },
    async indexLeads(physical) {
      const indexes = await mongo.db.collection(physical).listIndexes().toArray();
      return indexes
        .filter((i) => i.name !== '_id_')
        .map((i) => Object.keys(i.key as object)[0]!.replace(/\.k$/, ''))
        .sort();
    },
    async close() {
      await events.close();
      await db.close();
      await mongo.close();
    },
  };
}

/** Contract suites run once per read-model store: `describe.each(readModelStores())`. */
export function readModelStores(): StoreFactory[] {
  return [
    ...testDatabases().map((f) => ({ name: f.name, open: async () => sqlStore(await f.create()) })),
    { name: 'mongodb (FerretDB)', open: () => mongoStore() },
  ];
}
