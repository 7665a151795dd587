/**
 * Rebuild throughput of every read model on MongoDB (FerretDB 1.24 here) beside PostgreSQL, and beside a raw
 * insertMany of the very documents the MongoDB rebuild wrote, in one run. One history (busyWorld: every event the
 * read models handle) is appended once to an event store on PostgreSQL; each store first builds the models, then
 * `rebuild` (blue/green, what `ops projections rebuild` runs) is timed per projection. The raw baseline inserts
 * the same documents (same encoding, same indexes created first) with insertMany in batches of 1,000 into fresh
 * collections: what the journal, the position guard, the checkpoint writes and the reducers cost on top.
 *   node -r @swc-node/register bench/read-models.bench.ts [groups]   → bench/results/read-models.json
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { encodePosition, type MongoDatabase } from '@dob/mongo';
import { createTestMongoDatabase } from '../libs/mongo/src/testing/test-mongo';
import {
  ProjectionRunner,
  codecs,
  createCollections,
  insertInLanes,
  createMongoReadModelStore,
  createSqlReadModelStore,
  type ProjectionDefinition,
  type ReadModelStore,
  type StoredDoc,
} from '@dob/projections';
import { readModelProjections } from '@dob/read-models';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { busyWorld } from '../libs/read-models/src/testing/busy-world';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

const BATCH = 500; // the runner's default batch size

interface Rebuilt {
  seconds: number;
  events: number;
  eventsPerSecond: number;
  documents: number;
  perProjection: Record<string, { seconds: number; events: number; documents: number }>;
}

async function documentsOf(store: ReadModelStore, def: ProjectionDefinition): Promise<number> {
  let n = 0;
  for (const c of Object.keys(def.collections)) n += (await store.documents(def, c)).length;
  return n;
}

/** Builds every model once (caught up), then times a blue/green rebuild of each, one after another. */
async function rebuildAll(events: EventStore, store: ReadModelStore): Promise<Rebuilt> {
  const runner = new ProjectionRunner(events, store, readModelProjections, { batchSize: BATCH });
  await runner.start();
  try {
    await runner.waitUntilCaughtUp(3_600_000);
    const perProjection: Rebuilt['perProjection'] = {};
    let seconds = 0;
    let applied = 0;
    for (const def of readModelProjections) {
      const t = performance.now();
      const r = await runner.rebuild(def.name);
      const s = (performance.now() - t) / 1000;
      seconds += s;
      applied += r.eventsApplied;
      perProjection[def.name] = { seconds: +s.toFixed(2), events: r.eventsApplied, documents: await documentsOf(store, def) };
    }
    const documents = Object.values(perProjection).reduce((n, p) => n + p.documents, 0);
    return { seconds: +seconds.toFixed(2), events: applied, eventsPerSecond: Math.round(applied / seconds), documents, perProjection };
  } finally {
    await runner.stop();
  }
}

/** The same documents the MongoDB store holds, inserted raw (same encoding and indexes) into fresh collections. */
export async function rawInsertMany(
  source: ReadModelStore,
  target: MongoDatabase,
): Promise<{ seconds: number; documents: number; documentsPerSecond: number }> {
  let seconds = 0;
  let documents = 0;
  for (const def of readModelProjections) {
    const byName = codecs(def.collections);
    const tables = Object.fromEntries(Object.keys(def.collections).map((c) => [c, `raw_${def.name}_${c}`]));
    await createCollections(target.db, tables, def.collections);
    for (const [c, codec] of byName) {
      const docs = (await source.documents(def, c)).map((d) => codec.encode(d, encodePosition({ commit: 1n, prepare: 1n })));
      const t = performance.now();
      // As a rebuild's write-outs insert: 1,000 a command, two commands at a time (insertInLanes).
      await insertInLanes(target.db.collection<StoredDoc>(tables[c]!), docs.length, (from, to) => docs.slice(from, to));
      seconds += (performance.now() - t) / 1000;
      documents += docs.length;
    }
  }
  return { seconds: +seconds.toFixed(2), documents, documentsPerSecond: Math.round(documents / seconds) };
}

export async function run(groups = Number(process.argv[2] ?? 300)): Promise<object> {
  const machine = startMachineRecord();
  const schema = `bench_read_models_${randomBytes(4).toString('hex')}`;
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  const mongo = await createTestMongoDatabase();
  const raw = await createTestMongoDatabase();
  try {
    const events = await createSqlEventStore(db, { pollIntervalMs: 20, catalog: createChainEventCatalog() });
    const world = busyWorld(groups);
    for (const a of world.streamAppends()) await events.appendToStream(a.streamId, a.events);
    console.log(`history: ${world.size} events (${groups} groups)`);

    const postgres = await rebuildAll(events, createSqlReadModelStore(db));
    console.log(`PostgreSQL rebuild: ${postgres.eventsPerSecond} ev/s`);
    const mongoStore = createMongoReadModelStore(mongo, { retireGraceMs: 0 });
    const mongodb = await rebuildAll(events, mongoStore);
    console.log(`MongoDB (FerretDB) rebuild: ${mongodb.eventsPerSecond} ev/s`);
    const baseline = await rawInsertMany(mongoStore, raw);
    console.log(`raw insertMany of the same documents: ${baseline.documentsPerSecond} docs/s`);
    await events.close();

    const result = {
      benchmark: 'read-models',
      at: new Date().toISOString(),
      machine: machine(
        `shared 2-core machine; event store and SQL read models on the local PostgreSQL; MongoDB = FerretDB ${mongo.capabilities.version} ` +
          `(speaks for MongoDB ${mongo.capabilities.version}) on the same PostgreSQL, no transactions: journalled batches`,
      ),
      parameters: { groups, events: world.size, batchSize: BATCH, projections: readModelProjections.map((p) => p.name) },
      results: {
        postgres,
        mongodb,
        rawInsertManySameDocuments: baseline,
        mongoDocumentsPerSecond: Math.round(mongodb.documents / mongodb.seconds),
        mongoVsRawInsertMany: +(mongodb.documents / mongodb.seconds / baseline.documentsPerSecond).toFixed(3),
        mongoVsPostgres: +(mongodb.eventsPerSecond / postgres.eventsPerSecond).toFixed(3),
      },
    };
    writeBenchResult('read-models', result);
    return result;
  } finally {
    await raw.close();
    await mongo.close();
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  }
}

runWhenMain(module, run);
