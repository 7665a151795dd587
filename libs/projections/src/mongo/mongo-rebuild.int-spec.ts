import { ProjectionRunner } from '../runner/projection-runner';
import { MongoNetworkError } from 'mongodb';
import { ACCOUNTS, EVENTS, appendCounted, counting, expectedLog, expectedNotes, lateReading, logging, tallying } from '../testing/rebuild-projections';
import { mongoStore, type StoreUnderTest } from '../testing/store-matrix';

/**
 * Rebuilds on MongoDB (FerretDB here) whose slot cache cannot hold what they write (issue 33's rebuild at volume):
 * a collection only ever added to is inserted into after it is forgotten — a replace of a document FerretDB does
 * not find costs a whole read of the collection — and one whose documents are read is read back from the server.
 */
describe('a rebuild on MongoDB', () => {
  let s: StoreUnderTest | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('whose cache forgot a collection inserts its writes as new documents, and replaces those it finds taken', async () => {
    s = await mongoStore({ cacheDocuments: 10 });
    await appendCounted(s.events);
    const runner = new ProjectionRunner(s.events, s.store, [logging], { batchSize: 10, catchUpBatchSize: 100 });
    await runner.rebuild('logging');
    const log = await s.store.documents(logging, 'log');
    const expected = expectedLog();
    expect(log.length).toBe(expected.size);
    // Every 50th event rewrites a key two pages back: a stale n there means an insert that met it was dropped.
    expect(log.filter((d) => expected.get(d.key as string) !== d.n)).toEqual([]);
  });

  it('whose reducer reads a forgotten collection it only wrote so far reads what the build wrote, not an older copy', async () => {
    // The notes are forgotten on the second page and wait in the build (nobody reads them) until a reducer does.
    s = await mongoStore({ cacheDocuments: 100 });
    await appendCounted(s.events);
    const runner = new ProjectionRunner(s.events, s.store, [lateReading], { batchSize: 10, catchUpBatchSize: 100 });
    await runner.rebuild('late_reading');
    const notes = new Map((await s.store.documents(lateReading, 'notes')).map((d) => [d.key as string, d.n]));
    expect(notes).toEqual(expectedNotes());
  });

  it('whose cache forgets what its reducer reads counts every event once', async () => {
    s = await mongoStore({ cacheDocuments: ACCOUNTS / 2, buildFlush: { events: 300, documents: 100 } });
    await appendCounted(s.events);
    const runner = new ProjectionRunner(s.events, s.store, [counting], { batchSize: 10, catchUpBatchSize: 100 });
    await runner.rebuild('counting');
    const counts = await s.store.documents(counting, 'counts');
    expect(counts.map((c) => c.n)).toEqual(Array.from({ length: ACCOUNTS }, () => EVENTS / ACCOUNTS));
  });

  it('undoes a write-out of new documents that failed after its inserts (no journal), and counts every event once', async () => {
    let failAt = 3; // the third write-out (events 601–900)
    s = await mongoStore({
      buildFlush: { events: 300, documents: 100_000 },
      onStep: (step) => {
        if (step === 'applied' && --failAt === 0) throw new MongoNetworkError('test: the server went away before the checkpoint moved');
      },
    });
    await appendCounted(s.events);
    const options = { batchSize: 10, catchUpBatchSize: 100 };
    await expect(new ProjectionRunner(s.events, s.store, [tallying], options).rebuild('tallying')).rejects.toThrow('went away');
    const [building] = await s.store.states('tallying');
    expect([building!.status, building!.eventsApplied, await s.stored(building!.tables.seen!)]).toEqual(['rebuilding', 600, 900]);

    // A restarted process's first commit on the slot finds the write-out pending: undone (not finished), then refused.
    const resumed = s.reopened();
    const at = building!.position;
    await expect(resumed.commitBatch(tallying, building!.slot, at, at, [])).rejects.toThrow(/rolled back batch .* resume from/);
    expect(await s.stored(building!.tables.seen!)).toBe(600);
    await new ProjectionRunner(s.events, resumed, [tallying], options).rebuild('tallying');
    const seen = await resumed.documents(tallying, 'seen');
    // Resumed past START, its reducers read the server: a document left from the undone write-out would count twice.
    expect(seen.length).toBe(EVENTS);
    expect(seen.filter((d) => d.n !== 1)).toEqual([]);
  });
});
