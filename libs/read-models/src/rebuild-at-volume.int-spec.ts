import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore, type GlobalPosition, type StreamAppend } from '@dob/event-store';
import { createTestMongoDatabase } from '../../mongo/src/testing/test-mongo';
import { DEFAULT_CATCH_UP_BATCH_SIZE, ProjectionRunner, createMongoReadModelStore, createSqlReadModelStore, type ReadModelStore } from '@dob/projections';
import { createPgliteDatabase, createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../sql/src/testing/test-databases';
import { readModelProjections } from './projections';
import { largeHistory } from './testing/large-history';
import { appliedUpTo } from './testing/read-model-harness';
import { expectSameReadModels } from '../../projections/src/testing/same-documents';

const EVENTS = 20_000;
const LIVE_BATCH = 500;

/** Counts the events of every committed batch, to show which path applied them. */
function countingBatches(store: ReadModelStore): { store: ReadModelStore; largest: () => number } {
  let largest = 0;
  const counted: ReadModelStore = Object.create(store) as ReadModelStore;
  counted.commitBatch = async (def, slot, expected, next, events, fence) => {
    await store.commitBatch(def, slot, expected, next, events, fence);
    largest = Math.max(largest, events.length);
  };
  return { store: counted, largest: () => largest };
}

/** An empty read-model store of one kind, and how to dispose of it. */
type OpenStore = () => Promise<{ store: ReadModelStore; close: () => Promise<void> }>;

const postgresStore: OpenStore = async () => {
  const schema = testSchemaName();
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  const close = async () => {
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  };
  return { store: createSqlReadModelStore(db), close };
};

/** Each store its own embedded database (the events stay on PostgreSQL). */
const pgliteStore: OpenStore = async () => {
  const db = await createPgliteDatabase();
  return { store: createSqlReadModelStore(db), close: () => db.close() };
};

const mongoStore: OpenStore = async () => {
  const mongo = await createTestMongoDatabase();
  return { store: createMongoReadModelStore(mongo, { retireGraceMs: 0 }), close: () => mongo.close() };
};

const settled = (runner: ProjectionRunner, position: GlobalPosition) => appliedUpTo(runner, position, 400_000);

async function append(events: EventStore, calls: readonly StreamAppend[][]): Promise<GlobalPosition | null> {
  for (const call of calls) await events.appendMany(call);
  const last = calls.at(-1)?.at(-1);
  return last ? ((await events.readStream(last.streamId)).at(-1)?.position ?? null) : null;
}

/**
 * The fast path (large catch-up pages, one batch each) gives the same read models as the live path. A generated
 * history (every event kind the read models handle) is projected live as it is appended, batch by batch of the
 * live size; into a second store, a runner with the catch-up size builds it from scratch, is stopped while the
 * rest of the history is appended, catches up after restart, and then rebuilds every model blue/green. Each
 * stage must equal the live projection row for row. Read models on PostgreSQL, PGlite and MongoDB (FerretDB here).
 *
 * MongoDB with a tenth of the history: FerretDB applies each replace as its own command (see
 * MongoCapabilities.multiUpdateCommands), and the whole history took 512 s there under a load average of 13 — the
 * volume itself is the rebuild benchmark's (`npm run bench -- rebuild`). This case locked up FerretDB until
 * 2026-11-27: one bulkWrite of many replaces held all 50 of its PostgreSQL connections and waited for a 51st.
 */
describe.each([
  ['postgres', postgresStore, EVENTS],
  ['pglite', pgliteStore, EVENTS],
  ['mongodb', mongoStore, EVENTS / 10],
] as const)('rebuild at volume on %s', (_name, openStore, historySize) => {
  const schema = testSchemaName();
  let eventsDb: SqlDatabase;
  let events: EventStore;
  const opened: { close: () => Promise<void> }[] = [];
  const open = async () => {
    const o = await openStore();
    opened.push(o);
    return o.store;
  };

  beforeAll(async () => {
    eventsDb = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    events = await createSqlEventStore(eventsDb, { pollIntervalMs: 20, catalog: createChainEventCatalog() });
  });
  afterAll(async () => {
    for (const o of opened) await o.close();
    await events?.close();
    await eventsDb?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await eventsDb?.close();
  });

  it('build, catch-up after a stop and a blue/green rebuild through large batches equal the live projection', async () => {
    const live = await open();
    const fast = await open();
    const history = [...largeHistory({ seed: 7, events: historySize, pools: 90, wallets: 2000 })].flat();
    const half = Math.floor(history.length * 0.6);

    // Supervised at the runner's default: one process per store, and rebuild() hands its worker over itself, so a
    // faster supervisor only added bookkeeping reads (through FerretDB, each a scan).
    const liveRunner = new ProjectionRunner(events, live, readModelProjections, { batchSize: LIVE_BATCH });
    await liveRunner.start();
    const counted = countingBatches(fast);
    const fastRunner = () =>
      new ProjectionRunner(events, counted.store, readModelProjections, {
        batchSize: LIVE_BATCH,
        catchUpBatchSize: DEFAULT_CATCH_UP_BATCH_SIZE,
      });
    try {
      // The first part of the history, projected live; then the fast runner builds it from scratch.
      const first = (await append(events, history.slice(0, half)))!;
      await settled(liveRunner, first);
      let runner = fastRunner();
      await runner.start();
      await settled(runner, first);
      await runner.stop();
      expect(counted.largest()).toBeGreaterThan(LIVE_BATCH);
      await expectSameReadModels(fast, live, readModelProjections);

      // Stopped while the rest is appended: it catches up on restart, again in large batches.
      const last = (await append(events, history.slice(half)))!;
      await settled(liveRunner, last);
      runner = fastRunner();
      await runner.start();
      await settled(runner, last);
      await expectSameReadModels(fast, live, readModelProjections);

      // A blue/green rebuild of every model from START through the fast path.
      for (const name of runner.names) await runner.rebuild(name);
      await settled(runner, last);
      await runner.stop();
      await expectSameReadModels(fast, live, readModelProjections);
      for (const def of readModelProjections) {
        const state = (await fast.states(def.name)).find((s) => s.active);
        expect({ name: def.name, generation: state?.slot.generation }).toEqual({ name: def.name, generation: 1 });
      }
    } finally {
      await liveRunner.stop();
    }
  }, 900_000);
});
