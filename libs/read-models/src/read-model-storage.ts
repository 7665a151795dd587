import { openMongoDatabase } from '@dob/mongo';
import { createMongoReadModelStore, createSqlReadModelStore, type ReadModelStore } from '@dob/projections';
import type { SqlDatabase } from '@dob/sql';
import { clearFeaturedOverride, migrateFeaturedOverrides, setFeaturedOverride, type FeaturedOverride } from './featured/featured-overrides';
import { clearMongoFeaturedOverride, createMongoReadModelReader, setMongoFeaturedOverride } from './mongo/mongo-read-model-reader';
import { MongoServingWatch } from './mongo/serving-watch';
import type { ReadModelReader } from './queries/read-model-reader.port';
import { createReadResultCache } from './queries/read-result-cache';
import { createSqlReadModelReader } from './sql/sql-read-model-reader';

/**
 * Where the read models live, as every app composes it: the SQL database of the event store (PGlite embedded, or
 * PostgreSQL) by default, or MongoDB when MONGODB_URL is set. Projections write through `store`; the API reads
 * through a cached reader; trading looks listings up uncached; operators set featured pools here.
 */
export interface ReadModelStorage {
  readonly kind: 'sql' | 'mongodb';
  /** One line for logs: which store, and how it commits batches. */
  readonly description: string;
  readonly store: ReadModelStore;
  /** Reads without a result cache (lookups that must see the latest commit, e.g. trading). */
  readonly reader: ReadModelReader;
  /**
   * A reader whose results are kept until the read models change (SQL: NOTIFY; MongoDB: the change token, polled
   * within a 250 ms staleness bound). `changes`: a count moved by every such change, undefined while changes cannot
   * be observed (what the API's response cache keys on).
   */
  openCachedReader(): Promise<{ reader: ReadModelReader; changes?: () => number | undefined; close(): Promise<void> }>;
  /** MongoDB only: answers when its server does — the /health probe of the `mongodb` dependency. */
  readonly ping?: () => Promise<unknown>;
  setFeatured(o: FeaturedOverride): Promise<void>;
  clearFeatured(networkId: number, address: string): Promise<void>;
  close(): Promise<void>;
}

export interface ReadModelStorageOptions {
  /** The SQL database the event store uses (it holds the read models unless mongodbUrl is set). */
  readonly db: SqlDatabase;
  /** MongoDB for the read models (mongodb://host:port/<database>); unset = the SQL database. */
  readonly mongodbUrl?: string;
}

export async function openReadModelStorage(o: ReadModelStorageOptions): Promise<ReadModelStorage> {
  if (!o.mongodbUrl) {
    await migrateFeaturedOverrides(o.db);
    return {
      kind: 'sql',
      description: `${o.db.kind === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'} (batch and checkpoint in one transaction)`,
      store: createSqlReadModelStore(o.db),
      reader: createSqlReadModelReader(o.db),
      async openCachedReader() {
        const cache = await createReadResultCache(o.db);
        return { reader: createSqlReadModelReader(cache.db), changes: () => cache.generation, close: () => cache.close() };
      },
      setFeatured: (f) => setFeaturedOverride(o.db, f),
      clearFeatured: (n, a) => clearFeaturedOverride(o.db, n, a),
      close: async () => undefined,
    };
  }
  const mongo = await openMongoDatabase(o.mongodbUrl);
  const c = mongo.capabilities;
  return {
    kind: 'mongodb',
    description:
      `${c.server === 'ferretdb' ? 'FerretDB' : 'MongoDB'} ${c.version}, database ${mongo.db.databaseName} ` +
      `(${c.transactions ? 'batch and checkpoint in one transaction' : 'journalled batches, position-guarded writes'})`,
    store: createMongoReadModelStore(mongo),
    reader: createMongoReadModelReader(mongo, { cacheEntries: 0 }),
    // The serving collections polled in the background within a 250 ms staleness bound (serving-watch.ts): cached
    // reads then cost no FerretDB round trip, and the API's response cache keys on the watch's generation.
    async openCachedReader() {
      const serving = new MongoServingWatch(mongo.db).start();
      return {
        reader: createMongoReadModelReader(mongo, { serving }),
        changes: () => serving.generation(),
        close: async () => serving.stop(),
      };
    },
    ping: () => mongo.db.command({ ping: 1 }),
    setFeatured: (f) => setMongoFeaturedOverride(mongo, f),
    clearFeatured: (n, a) => clearMongoFeaturedOverride(mongo, n, a),
    close: () => mongo.close(),
  };
}
