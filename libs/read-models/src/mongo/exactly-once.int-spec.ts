import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { type MongoDatabase } from '@dob/mongo';
import { TEST_MONGODB_URL, createTestMongoDatabase } from '../../../mongo/src/testing/test-mongo';
import {
  ProjectionRunner,
  READ_MODEL_JOURNAL,
  READ_MODEL_STATE,
  createMongoReadModelStore,
  type ProjectionDefinition,
  type ReadModelStore,
} from '@dob/projections';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../sql/src/testing/test-databases';
import { credit, ledgerProjection } from '../../../projections/src/testing/ledger.projection';
import { expectSameDocuments } from '../../../projections/src/testing/same-documents';
import { readModelProjections } from '../projections';
import { buildUnbuilt } from '../testing/build-unbuilt';
import { busyWorld } from '../testing/busy-world';

const ROOT = join(__dirname, '../../../..');
const CREDITS = 2000;
type Kill = { step: string; delayMs?: number };
const FOLLOW_KILLS: Kill[] = [
  { step: 'pending', delayMs: 40 }, // inside the guarded writes of a batch past its commit point
  { step: 'journalled' }, // journalled, commit point not reached
  { step: 'pending', delayMs: 40 },
  { step: 'applied' }, // writes applied, checkpoint not moved
  { step: 'pending', delayMs: 40 },
];
const REBUILD_KILLS: Kill[] = [
  { step: 'cleared' }, // a rebuild's batch: replaced documents deleted, their new states not inserted
  { step: 'journalled' },
  { step: 'pending', delayMs: 40 },
  { step: 'applied' }, // journalled or not: the documents written, the checkpoint not moved
  { step: 'marked' }, // a write-out of new documents only, marked pending without a journal: nothing inserted yet
  { step: 'marked', delayMs: 40 }, // … inside its inserts (undone on restart, not finished)
];

/**
 * Exactly-once on MongoDB without transactions (FerretDB): a child process projecting the ledger and every read
 * model is SIGKILLed five or six times in the middle of batch commits; the restarted projections must equal a clean build
 * in a database of their own, with every ledger event applied exactly once. Once following live (guarded writes),
 * once building blue/green (a slot nobody reads yet: one delete and one insert per collection, writeUnserved).
 */
describe.each([
  { mode: 'follow', kills: FOLLOW_KILLS, killAt: [2, 8], pendingAfter: [3] },
  // Earlier kills: each child resumes the builds where the last one died, and the history ends.
  { mode: 'rebuild', kills: REBUILD_KILLS, killAt: [1, 3], pendingAfter: [0, 3, 4] },
])('exactly-once read models across SIGKILL (MongoDB store on FerretDB, $mode)', ({ mode, kills, killAt, pendingAfter }) => {
  const schema = testSchemaName();
  const definitions: ProjectionDefinition[] = [ledgerProjection(), ...readModelProjections];
  let db: SqlDatabase;
  let events: EventStore;
  let crashed: MongoDatabase;
  let clean: MongoDatabase;

  beforeAll(async () => {
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    events = await createSqlEventStore(db, { pollIntervalMs: 20 });
    const validating = await createSqlEventStore(db, { catalog: createChainEventCatalog() }); // the chain history is catalog-checked
    const credits = Array.from({ length: CREDITS }, (_, i) => credit(i));
    const world = busyWorld(25).streamAppends();
    // Credits and chain history interleaved, so batches of every projection cross the kills.
    for (let i = 0; i < CREDITS; i += 200) {
      await events.appendToStream(`ledger-${i}`, credits.slice(i, i + 200));
      for (const a of world.splice(0, Math.ceil(world.length / ((CREDITS - i) / 200)))) await validating.appendToStream(a.streamId, a.events);
    }
    await validating.close();
    crashed = await createTestMongoDatabase();
    clean = await createTestMongoDatabase();
  });
  afterAll(async () => {
    await events?.close();
    await db?.close();
    await crashed?.close();
    await clean?.close();
  });

  const runChild = (kill: Kill) => {
    const child = spawn(process.execPath, ['-r', join(__dirname, '../../../../scripts/register.js'), join(__dirname, '../testing/mongo-kill-child.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: TEST_POSTGRES_URL,
        SCHEMA: schema,
        MONGODB_URL: TEST_MONGODB_URL,
        MONGODB_DB: crashed.db.databaseName,
        MODE: mode,
        KILL_STEP: kill.step,
        KILL_AT: String(randomInt(killAt[0]!, killAt[1]!)),
        KILL_DELAY_MS: String(kill.delayMs ?? 0),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
    );
  };

  const build = async (store: ReadModelStore) => {
    const runner = new ProjectionRunner(events, store, definitions, { batchSize: 50 });
    try {
      await runner.start();
      await runner.waitUntilCaughtUp(300_000);
      // Caught up = read everything once; wait for every checkpoint to reach the head too.
      const head = await events.headPosition();
      for (;;) {
        const states = await store.states();
        if (states.every((s) => !s.active || `${s.position.commit}:${s.position.prepare}` === `${head.commit}:${head.prepare}`)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await runner.stop();
    }
  };

  it('kills mid-batch, then a restart: every model equals a clean build, every event applied once', async () => {
    const state = () => crashed.db.collection(READ_MODEL_STATE).find({ kind: 'slot' }).toArray();
    const left: { pending: number; unjournalled: number; journal: number }[] = [];
    for (const kill of kills) {
      const exit = await runChild(kill);
      expect({ kill: kill.step, ...exit }).toEqual({ kill: kill.step, code: null, signal: 'SIGKILL', stderr: '' });
      const slots = await state();
      left.push({
        pending: slots.filter((s) => s.pending).length,
        unjournalled: slots.filter((s) => s.pending?.rollback_above !== undefined).length,
        journal: await crashed.db.collection(READ_MODEL_JOURNAL).countDocuments({}),
      });
    }
    // The kills landed inside commits: after the journal (chunks with no commit point) and after the writes
    // (a batch still pending); in a rebuild, also between a batch's delete and insert, and at the mark of a write-out
    // without a journal (a batch still pending).
    expect(left[1]!.journal).toBeGreaterThan(0);
    for (const i of pendingAfter) expect([kills[i]!.step, left[i]!.pending > 0]).toEqual([kills[i]!.step, true]);
    // … and a kill at `marked` left a write-out to undo rather than finish.
    kills.forEach((k, i) => k.step === 'marked' && !k.delayMs && expect(left[i]!.unjournalled).toBeGreaterThan(0));
    const progress = (await state()).reduce((n, s) => n + (s.events_applied as number), 0);
    expect(progress).toBeGreaterThan(0);

    const restarted = createMongoReadModelStore(crashed, { retireGraceMs: 0 });
    if (mode === 'rebuild') {
      // The builds the kills interrupted, resumed; then the built slots must be the ones serving.
      await buildUnbuilt(new ProjectionRunner(events, restarted, definitions, { batchSize: 50 }), restarted, definitions);
      const states = await restarted.states();
      const serving = states.filter((s) => s.active).map((s) => `${s.slot.name} ${s.status}`);
      expect(serving.sort()).toEqual(definitions.map((d) => `${d.name} live`).sort());
    }
    await build(restarted);
    const reference = createMongoReadModelStore(clean, { retireGraceMs: 0 });
    await build(reference);

    for (const def of definitions) {
      for (const collection of Object.keys(def.collections)) {
        const [got, want] = await Promise.all([restarted.documents(def, collection), reference.documents(def, collection)]);
        expectSameDocuments(`${def.name}.${collection}`, got, want);
        expect([def.name, collection, want.length > 0]).toEqual([def.name, collection, true]);
      }
    }
    const applied = await restarted.documents(definitions[0]!, 'applied');
    expect(applied).toHaveLength(CREDITS);
    expect(applied.every((d) => d.times === 1)).toBe(true);
    expect(await crashed.db.collection(READ_MODEL_JOURNAL).countDocuments({})).toBe(0);
  });
});
