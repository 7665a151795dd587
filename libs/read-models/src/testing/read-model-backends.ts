import type { EventDefinition } from '@dob/domain';
import { createTestMongoDatabase } from '../../../mongo/src/testing/test-mongo';
import { createMongoReadModelStore } from '@dob/projections';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { testDatabases, type TestDatabaseFactory } from '../../../sql/src/testing/test-databases';
import { clearFeaturedOverride, setFeaturedOverride, type FeaturedOverride } from '../featured/featured-overrides';
import { clearMongoFeaturedOverride, createMongoReadModelReader, setMongoFeaturedOverride } from '../mongo/mongo-read-model-reader';
import type { ReadModelReader } from '../queries/read-model-reader.port';
import { createSqlReadModelReader } from '../sql/sql-read-model-reader';
import { startReadModels, type ReadModelHarness } from './read-model-harness';

/** Read models projected into one store, with what tests read and configure them through. */
export interface ReadModelBackend {
  readonly name: string;
  /** Holds the event store (and the read models of a SQL backend); auth and trading tables go here too. */
  readonly db: SqlDatabase;
  readonly harness: ReadModelHarness;
  readonly reader: ReadModelReader;
  setFeatured(o: FeaturedOverride): Promise<void>;
  clearFeatured(networkId: number, address: string): Promise<void>;
  close(): Promise<void>;
}

export interface ReadModelBackendFactory {
  readonly name: TestDatabaseFactory['name'] | 'mongodb';
  open(extraEvents?: readonly EventDefinition[]): Promise<ReadModelBackend>;
}

async function sqlBackend(name: string, db: SqlDatabase, extraEvents: readonly EventDefinition[]): Promise<ReadModelBackend> {
  const harness = await startReadModels(db, extraEvents);
  return {
    name,
    db,
    harness,
    reader: createSqlReadModelReader(db),
    setFeatured: (o) => setFeaturedOverride(db, o),
    clearFeatured: (n, a) => clearFeaturedOverride(db, n, a),
    async close() {
      await harness.close();
      await db.close();
    },
  };
}

/** MongoDB read models (FerretDB, a database of the test's own, dropped on close) over an event store on PGlite. */
async function mongoBackend(extraEvents: readonly EventDefinition[]): Promise<ReadModelBackend> {
  const mongo = await createTestMongoDatabase();
  const db = await createPgliteDatabase();
  const harness = await startReadModels(db, extraEvents, createMongoReadModelStore(mongo, { retireGraceMs: 0 }));
  return {
    name: 'mongodb',
    db,
    harness,
    reader: createMongoReadModelReader(mongo),
    setFeatured: (o) => setMongoFeaturedOverride(mongo, o),
    clearFeatured: (n, a) => clearMongoFeaturedOverride(mongo, n, a),
    async close() {
      await harness.close();
      await db.close();
      await mongo.close();
    },
  };
}

/** Suites over the read models run once per store: `describe.each(readModelBackends())`. */
export function readModelBackends(): ReadModelBackendFactory[] {
  return [
    ...testDatabases().map((f) => ({ name: f.name, open: async (extra: readonly EventDefinition[] = []) => sqlBackend(f.name, await f.create(), extra) })),
    { name: 'mongodb' as const, open: (extra: readonly EventDefinition[] = []) => mongoBackend(extra) },
  ];
}
