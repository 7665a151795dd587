import type { ServingCollections } from '@dob/projections';
import type { Db } from 'mongodb';
import { MongoServingWatch } from './serving-watch';

/** A bookkeeping whose token the test sets, counting reads; `stall` makes reads hang until released. */
function fakeBookkeeping() {
  let token = 'a';
  let reads = 0;
  let stalled: Promise<void> | undefined;
  let release = () => {};
  return {
    set: (t: string) => (token = t),
    get reads() {
      return reads;
    },
    stall() {
      stalled = new Promise((r) => (release = r));
    },
    release: () => release(),
    async read(): Promise<ServingCollections> {
      reads++;
      const at = token;
      if (stalled) await stalled;
      return { tables: new Map(), token: at };
    },
  };
}

describe('MongoServingWatch', () => {
  const db = {} as Db;
  let now = 0;
  const clock = () => now;

  it('serves the polled view only within the bound, and reads the bookkeeping itself after it', async () => {
    const book = fakeBookkeeping();
    const watch = new MongoServingWatch(db, { boundMs: 250, clock, readServing: () => book.read() });
    now = 1000;
    await watch.poll();
    expect(book.reads).toBe(1);

    now = 1250; // exactly the bound: still the polled view, no read
    expect((await watch.view()).token).toBe('a');
    expect(book.reads).toBe(1);

    book.set('b'); // a commit the watch has not polled yet
    now = 1251; // past the bound: the read resolves the view itself and sees the commit
    expect(watch.fresh()).toBeUndefined();
    expect((await watch.view()).token).toBe('b');
    expect(book.reads).toBe(2);
  });

  it("keeps a token's view (and what it memoises) and moves the generation only when the token changes", async () => {
    const book = fakeBookkeeping();
    const watch = new MongoServingWatch(db, { boundMs: 250, clock, readServing: () => book.read() });
    now = 0;
    await watch.poll();
    const first = await watch.view();
    const g = watch.generation();
    now = 100;
    await watch.poll();
    expect(await watch.view()).toBe(first);
    expect(watch.generation()).toBe(g);

    book.set('b');
    now = 200;
    await watch.poll();
    expect((await watch.view()).token).toBe('b');
    expect(watch.generation()).toBe(g! + 1);
  });

  it('says no generation while polls fail or stall, so answer caches stop', async () => {
    const book = fakeBookkeeping();
    const watch = new MongoServingWatch(db, { boundMs: 250, pollTimeoutMs: 50, clock, readServing: () => book.read() });
    now = 0;
    await watch.poll();
    expect(watch.generation()).toBeDefined();

    book.stall();
    now = 200;
    await expect(watch.poll()).rejects.toThrow(/no answer within 50 ms/);
    expect(watch.generation()).toBeDefined(); // the last view is still within the bound
    now = 251;
    expect(watch.generation()).toBeUndefined();
    expect(watch.fresh()).toBeUndefined();
    book.release();
  });

  it('shares one lookup among the reads that find no fresh view, while it began within the bound', async () => {
    const book = fakeBookkeeping();
    const watch = new MongoServingWatch(db, { boundMs: 250, clock, readServing: () => book.read() });
    now = 0;
    book.stall(); // a slow FerretDB
    const first = watch.view();
    now = 100;
    const second = watch.view(); // joins the lookup begun 100 ms ago
    now = 300;
    const third = watch.view(); // that lookup began 300 ms ago, past the bound: a lookup of its own
    book.release();
    await Promise.all([first, second, third]);
    expect(book.reads).toBe(2);
  });

  it('does not let a slow poll replace a later view', async () => {
    const book = fakeBookkeeping();
    const watch = new MongoServingWatch(db, { boundMs: 250, clock, readServing: () => book.read() });
    now = 0;
    book.stall();
    const slow = watch.poll(); // began at 0, reads token 'a'
    book.set('b');
    book.release();
    now = 10;
    await watch.view(); // began at 10 (no fresh view yet): token 'b'
    await slow;
    expect(watch.fresh()?.token).toBe('b');
  });
});
