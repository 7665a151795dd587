import { START, createSqlEventStore, positionToString, type EventStore } from '@dob/event-store';
import type { SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import type { ReadModelStore } from '../read-model-store.port';
import { ProjectionRunner } from '../runner/projection-runner';
import { ACCOUNTS, EVENTS, appendCounted, counting, expectedLog, logging, recording } from '../testing/rebuild-projections';
import { createSqlReadModelStore } from './sql-read-model-store';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The database, counting the transactions begun through it (reset by assigning `transactions`) and recording the table
 * of every COPY and every upsert (INSERT … ON CONFLICT) run in them.
 */
function watchedWrites(db: SqlDatabase): { db: SqlDatabase; transactions: number; copies: string[]; upserts: string[] } {
  const seen = { db: Object.create(db) as SqlDatabase, transactions: 0, copies: [] as string[], upserts: [] as string[] };
  seen.db.transaction = (fn) => {
    seen.transactions++;
    return db.transaction((tx) =>
      fn({
        query: (text, params) => {
          const upsert = /^\s*INSERT INTO (\S+)[\s\S]*ON CONFLICT/.exec(text);
          if (upsert) seen.upserts.push(upsert[1]!);
          return tx.query(text, params);
        },
        exec: (text) => tx.exec(text),
        copyIn: (table, columns, text) => {
          seen.copies.push(table);
          return tx.copyIn(table, columns, text);
        },
      }),
    );
  };
  return seen;
}

/**
 * Reads slower than a plain commit, so the worker starts reducing pages ahead (it does once a commit has finished by
 * the time the next page is read), and commits of pages reduced ahead slower than reads: from then on every page is
 * reduced while the one before it has not committed yet.
 */
function reducingAheadOfCommits(events: EventStore, store: ReadModelStore): { events: EventStore; store: ReadModelStore } {
  const slowReads: EventStore = Object.create(events) as EventStore;
  slowReads.readAll = async (options) => {
    await sleep(30);
    return events.readAll(options);
  };
  const slowCommits: ReadModelStore = Object.create(store) as ReadModelStore;
  let reducedAhead = 0;
  slowCommits.commitBatch = async (...args) => {
    if (args[6]) {
      reducedAhead++;
      await sleep(60);
    }
    return store.commitBatch(...args);
  };
  Object.defineProperty(slowCommits, 'reducedAhead', { get: () => reducedAhead });
  return { events: slowReads, store: slowCommits };
}

/**
 * A slot cache past its budget forgets whole collections, even ones its reducers read (issue 33's rebuild at volume);
 * a page reduced ahead must still see the page before it, which may not have committed yet. With a budget of half the
 * hot documents, the collection is forgotten every page.
 */
describe.each(testDatabases({ pgliteWorker: true }))('a rebuild on $name', (factory) => {
  let db: SqlDatabase;
  let events: EventStore;

  beforeAll(async () => {
    db = await factory.create();
    events = await createSqlEventStore(db, { pollIntervalMs: 20 });
    await appendCounted(events);
  });
  afterAll(async () => {
    await events.close();
    await db.close();
  });

  it('whose slot cache forgets what its reducer reads counts every event once, as a cache large enough does', async () => {
    const store = createSqlReadModelStore(db, { cacheDocuments: ACCOUNTS / 2, buildLimits: { events: 300, documents: 100, minSaving: 0.1 } });
    const slow = reducingAheadOfCommits(events, store);
    const runner = new ProjectionRunner(slow.events, slow.store, [counting], { batchSize: 10, catchUpBatchSize: 100 });
    await runner.rebuild('counting');
    // Pages were reduced ahead of a commit in flight, though the budget allows fewer than one page's documents.
    expect((slow.store as unknown as { reducedAhead: number }).reducedAhead).toBeGreaterThan(0);
    const counts = await store.documents(counting, 'counts');
    expect(counts).toHaveLength(ACCOUNTS);
    expect(counts.map((c) => c.n)).toEqual(Array.from({ length: ACCOUNTS }, () => EVENTS / ACCOUNTS));
  });

  it('whose cache forgot a collection loads it as new rows, and replaces the rows it finds taken', async () => {
    const store = createSqlReadModelStore(db, { cacheDocuments: 10 });
    const runner = new ProjectionRunner(events, store, [logging], { batchSize: 10, catchUpBatchSize: 100 });
    await runner.rebuild('logging');
    const log = await store.documents(logging, 'log');
    const expected = expectedLog();
    expect(log.length).toBe(expected.size);
    expect(log.every((d) => expected.get(d.key as string) === d.n)).toBe(true);
  });

  it('keeps its batches in a build, written out every 500 events: fewer transactions than pages, the same counts', async () => {
    const counted = watchedWrites(db);
    const store = createSqlReadModelStore(counted.db, { buildLimits: { events: 500, documents: 100_000, minSaving: 0.1 } });
    const slow = reducingAheadOfCommits(events, store);
    const runner = new ProjectionRunner(slow.events, slow.store, [counting], { batchSize: 10, catchUpBatchSize: 100 });
    await runner.rebuild('counting');
    const counts = await store.documents(counting, 'counts');
    expect(counts.map((c) => c.n)).toEqual(Array.from({ length: ACCOUNTS }, () => EVENTS / ACCOUNTS));
    // 20 pages: the first one direct, then four write-outs of 500 events and the slot's creation and switch.
    expect(counted.transactions).toBeLessThan(EVENTS / 100 / 2);
  });

  it('commits a write-out behind the next batches; one that fails is resumed from the stored checkpoint, every event counted once', async () => {
    let transactions = 0;
    let failing = false;
    let committedWhileFailing = 0;
    const flaky: SqlDatabase = Object.create(db) as SqlDatabase;
    flaky.transaction = (fn) => {
      // The fourth transaction: the slot's creation, the first page (direct), then the second write-out.
      if (++transactions !== 4) return db.transaction(fn);
      failing = true;
      return db
        .transaction(async (tx) => {
          await fn(tx);
          await sleep(300);
          throw new Error('test: the write-out failed at its commit');
        })
        .finally(() => (failing = false));
    };
    const store = createSqlReadModelStore(flaky, { buildLimits: { events: 300, documents: 100_000, minSaving: 0.1 } });
    const watched: ReadModelStore = Object.create(store) as ReadModelStore;
    watched.commitBatch = async (...args) => {
      await store.commitBatch(...args);
      if (failing) committedWhileFailing++;
    };
    const runner = new ProjectionRunner(events, watched, [counting], { batchSize: 10, catchUpBatchSize: 100 });
    await runner.rebuild('counting');
    // The worker went on committing batches to the build while the write-out was in flight …
    expect(committedWhileFailing).toBeGreaterThan(0);
    // … and those batches were dropped with it, then reduced again from the stored checkpoint.
    const counts = await store.documents(counting, 'counts');
    expect(counts.map((c) => c.n)).toEqual(Array.from({ length: ACCOUNTS }, () => EVENTS / ACCOUNTS));
    const [built] = (await store.states('counting')).filter((s) => s.active);
    expect(built!.eventsApplied).toBe(EVENTS);
  });

  const counted = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, k) => {
      const i = from + k;
      const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      return { streamId: `counted-${i}`, events: [{ id, type: 'test.counted', version: 1, data: { account: `a${i % ACCOUNTS}` } }] };
    });

  /** A test's own database and event store, closed after it. */
  const withOwnHistory = async (run: (own: SqlDatabase, history: EventStore) => Promise<void>) => {
    const own = await factory.create();
    const history = await createSqlEventStore(own, { pollIntervalMs: 20 });
    try {
      await run(own, history);
    } finally {
      await history.close();
      await own.close();
    }
  };

  /** A projector follows the first 500 events and is stopped; then the history grows to `to` events. */
  const stoppedBehind = async (history: EventStore, runner: () => ProjectionRunner, to: number) => {
    await history.appendMany(counted(0, 500));
    const first = runner();
    await first.start();
    await first.waitUntilCaughtUp(60_000);
    await first.stop();
    for (let i = 500; i < to; i += 100) await history.appendMany(counted(i, Math.min(to, i + 100)));
  };

  const countsOf = (events: number) => Array.from({ length: ACCOUNTS }, () => events / ACCOUNTS);

  // A projector started again has a store of its own; the one process of `npm start` keeps the store that created
  // and activated the slot on its first start (the first slot serves at once), which once built no backlog for it.
  it.each([
    ['started again (a store of its own)', true],
    ['that activated the slot (the same store)', false],
  ])('catches a serving slot up on a backlog through a build in a process %s, and stores all of it once caught up', (_, restarted) =>
    withOwnHistory(async (own, history) => {
      const watched = watchedWrites(own);
      let store = createSqlReadModelStore(watched.db);
      const runner = () => new ProjectionRunner(history, store, [counting], { batchSize: 50, catchUpBatchSize: 1000 });
      // Stopped while 8,000 more are appended: eight backlog pages of 1,000.
      await stoppedBehind(history, runner, 8_500);
      watched.transactions = 0;
      if (restarted) store = createSqlReadModelStore(watched.db);
      const second = runner();
      await second.start();
      await second.waitUntilCaughtUp(60_000);
      // Caught up means stored: the build was written out before the worker followed live.
      const [serving] = await store.states('counting');
      expect(serving!.position).toEqual(await history.headPosition());
      expect(serving!.eventsApplied).toBe(8_500);
      await second.stop();
      // The first page committed by itself, the other seven in the build's one write-out at the end (page by page: 9).
      expect(watched.transactions).toBeLessThanOrEqual(3);
      const counts = await store.documents(counting, 'counts');
      expect(counts.map((c) => c.n)).toEqual(countsOf(8_500));
    }),
  );

  it("loads a serving slot's backlog into a collection only ever added to by COPY, and replaces the rows it finds taken", () =>
    withOwnHistory(async (own, history) => {
      const watched = watchedWrites(own);
      // A budget of 10 documents: nothing is preloaded, so neither collection is known to the backlog's cache.
      let store = createSqlReadModelStore(watched.db, { cacheDocuments: 10 });
      const runner = () => new ProjectionRunner(history, store, [recording, logging], { batchSize: 50, catchUpBatchSize: 1000 });
      await stoppedBehind(history, runner, 8_500);
      watched.copies.length = watched.upserts.length = 0;
      store = createSqlReadModelStore(watched.db, { cacheDocuments: 10 });
      const second = runner();
      await second.start();
      await second.waitUntilCaughtUp(60_000);
      await second.stop();
      const tablesOf = (name: string) => (tables: string[]) => tables.filter((t) => t.includes(`_${name}_`));
      // Every backlog row of the collection only ever added to went in by COPY, none by the upsert …
      expect(tablesOf('recording')(watched.copies).length).toBeGreaterThan(0);
      expect(tablesOf('recording')(watched.upserts)).toEqual([]);
      expect(await store.documents(recording, 'entries')).toHaveLength(8_500);
      // … while the log, whose 549th event rewrites a row from before the stop, was tried as new rows and replaced.
      expect(tablesOf('logging')(watched.copies).length).toBeGreaterThan(0);
      expect(tablesOf('logging')(watched.upserts).length).toBeGreaterThan(0);
      const log = await store.documents(logging, 'log');
      const expected = expectedLog(8_500);
      expect(log.length).toBe(expected.size);
      expect(log.every((d) => expected.get(d.key as string) === d.n)).toBe(true);
    }));

  it("holds a serving slot's backlog pages in a build until its worker has caught up", () =>
    withOwnHistory(async (own, history) => {
      await appendCounted(history);
      const store = createSqlReadModelStore(own);
      await store.init();
      const slot = { name: 'counting', version: 1, generation: 0 };
      await store.createSlot(counting, slot, 'catching_up');
      const first = await history.readAll({ maxCount: 1000 });
      const second = await history.readAll({ after: first.last, maxCount: 1000 });
      await store.commitBatch(counting, slot, START, first.last, first.events);
      await store.commitBatch(counting, slot, first.last, second.last, second.events);
      // The second page waits in the build (a backlog's page, far larger than a live batch) …
      expect((await store.state(slot))!.position).toEqual(first.last);
      await store.caughtUp!(slot);
      // … until the worker says it follows live.
      expect((await store.state(slot))!.position).toEqual(second.last);
      expect((await store.state(slot))!.eventsApplied).toBe(2_000);
    }));

  it("retries a serving slot's backlog whose build failed to write out, rather than faulting the slot on an event", () =>
    withOwnHistory(async (own, history) => {
      // The first transaction to take the slot from the first page to the end of the backlog in one go (the build's
      // write-out) fails at its commit.
      let failed = 0;
      let pageCommitted = false;
      const flaky: SqlDatabase = Object.create(own) as SqlDatabase;
      flaky.transaction = (fn) =>
        own.transaction(async (tx) => {
          const result = await fn(tx);
          const { rows } = await tx.query<{ n: string }>(`SELECT events_applied::text AS n FROM projection_checkpoints WHERE name = 'counting'`);
          if (failed === 0 && rows[0]?.n === '8800' && pageCommitted) {
            failed++;
            throw new Error('test: the write-out failed at its commit');
          }
          if (rows[0]?.n === '1500') pageCommitted = true;
          return result;
        });
      let store = createSqlReadModelStore(flaky);
      const runner = () => new ProjectionRunner(history, store, [counting], { batchSize: 50, catchUpBatchSize: 1000, superviseIntervalMs: 50 });
      // 8,300 more: eight backlog pages, then one of 300 — live-sized, so the build ends there, written out at once.
      await stoppedBehind(history, runner, 8_800);
      store = createSqlReadModelStore(flaky);
      const second = runner();
      await second.start();
      await second.waitUntilCaughtUp(60_000);
      await second.stop();
      const [serving] = await store.states('counting');
      expect([serving!.status, serving!.fault, serving!.eventsApplied]).toEqual(['live', null, 8_800]);
      expect(failed).toBe(1); // the failed write-out was redone
      const counts = await store.documents(counting, 'counts');
      expect(counts.map((c) => c.n)).toEqual(countsOf(8_800));
    }));

  it('does not report a serving slot caught up while a write-out its last backlog page started behind it has failed', () =>
    withOwnHistory(async (own, history) => {
      // Once the last backlog page is handed to the store, the next transaction (the write-out that page makes due,
      // committing behind the worker) is refused at once, as by a server gone for a moment: it fails before the
      // worker gets to caughtUp, and no batch comes after it to fail on it instead.
      let armed = false;
      let failed = 0;
      const flaky: SqlDatabase = Object.create(own) as SqlDatabase;
      flaky.transaction = (fn) => {
        if (!armed || failed > 0) return own.transaction(fn);
        failed++;
        return Promise.reject(Object.assign(new Error('test: connection refused'), { code: 'SERVICE_UNAVAILABLE' }));
      };
      let store = createSqlReadModelStore(flaky);
      let head = '';
      const watched = () => {
        const w: ReadModelStore = Object.create(store) as ReadModelStore;
        w.commitBatch = (...args) => {
          if (positionToString(args[3]) === head) armed = true;
          return store.commitBatch(...args);
        };
        return w;
      };
      const runner = () => new ProjectionRunner(history, watched(), [counting], { batchSize: 50, catchUpBatchSize: 1000, superviseIntervalMs: 50 });
      // 8,000 more: eight backlog pages, the last one full (1,000 events): the build's one write-out is due at it.
      await stoppedBehind(history, runner, 8_500);
      head = positionToString(await history.headPosition());
      store = createSqlReadModelStore(flaky, { buildLimits: { events: 7_000, documents: 100_000, minSaving: 0.1 } });
      const second = runner();
      await second.start();
      await second.waitUntilCaughtUp(60_000);
      const [serving] = await store.states('counting');
      await second.stop();
      expect(failed).toBe(1);
      // Caught up means stored (the worker resumed from the stored checkpoint and wrote its backlog out again).
      expect([serving!.status, positionToString(serving!.position), serving!.eventsApplied]).toEqual(['live', head, 8_500]);
      const counts = await store.documents(counting, 'counts');
      expect(counts.map((c) => c.n)).toEqual(countsOf(8_500));
    }));
});
