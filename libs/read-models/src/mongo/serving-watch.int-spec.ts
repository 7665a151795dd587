import type { MongoDatabase } from '@dob/mongo';
import { createTestMongoDatabase } from '../../../mongo/src/testing/test-mongo';
import { bumpChanges, readServingCollections } from '@dob/projections';
import { MongoServingWatch } from './serving-watch';

const BOUND_MS = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The MongoDB reader's staleness bound on FerretDB (issue 33): after a commit to the bookkeeping (the change counter a
 * projector's checkpoint or an operator's override moves), every view a read takes from `BOUND_MS` later on carries
 * it — with the watch polling normally, and with its polls stalled (then reads resolve the view themselves).
 */
describe('MongoServingWatch on FerretDB', () => {
  let mongo: MongoDatabase;
  beforeAll(async () => {
    mongo = await createTestMongoDatabase();
  });
  afterAll(async () => {
    await mongo.db.dropDatabase().catch(() => undefined);
    await mongo.close();
  });

  /** A commit that moves the change token: the `n`th bump of counter `what`; the token part it gives. */
  const committed = async (what: string, n: number) => {
    await bumpChanges(mongo.db, what);
    return `changes:${what}=${n}`;
  };

  it('never hands a read a view older than the bound after a commit', async () => {
    const watch = new MongoServingWatch(mongo.db, { boundMs: BOUND_MS }).start();
    try {
      for (let n = 1; n <= 8; n++) {
        const change = await committed('polled', n);
        const after = Date.now() + BOUND_MS;
        // Reads just after the commit may or may not see it; every read from the bound on must.
        while (Date.now() < after + 150) {
          const startedAt = Date.now();
          const { token } = await watch.view();
          if (startedAt > after) expect(token.split(';')).toContain(change);
          await sleep(10);
        }
      }
    } finally {
      watch.stop();
    }
  });

  it('with its polls stalled, reads past the bound read the bookkeeping themselves', async () => {
    let stall = false;
    const watch = new MongoServingWatch(mongo.db, {
      boundMs: BOUND_MS,
      readServing: async (db) => {
        if (stall) await sleep(5_000); // a FerretDB too busy to answer the watch's poll
        return readServingCollections(db);
      },
      pollTimeoutMs: 10_000,
    }).start();
    try {
      await sleep(300);
      stall = true;
      await sleep(200); // the poll now in flight stalls, and the next waits for it
      const change = await committed('stalled', 1);
      await sleep(BOUND_MS + 50);
      expect(watch.generation()).toBeUndefined(); // answer caches keyed on it stop serving
      stall = false; // the read's own lookup answers
      expect((await watch.view()).token.split(';')).toContain(change);
    } finally {
      stall = false;
      watch.stop();
    }
  });

  it('keeps the bound when the wall clock steps back (NTP, a resumed VM)', async () => {
    let step = 0;
    const wall = Date.now.bind(Date);
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => wall() + step);
    const watch = new MongoServingWatch(mongo.db, { boundMs: BOUND_MS }).start();
    try {
      await sleep(300);
      step = -60_000; // before: the last view looked fresh for a minute, and every later poll looked older than it
      const change = await committed('clock', 1);
      await sleep(BOUND_MS + 50);
      expect((await watch.view()).token.split(';')).toContain(change);
    } finally {
      watch.stop();
      spy.mockRestore();
    }
  });
});
