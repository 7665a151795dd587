import { reduceBatch } from './batch-state';
import { CachedDocumentSource } from './cached-source';
import { prefetchingSource } from './prefetch';
import { SlotCache } from './slot-cache';
import { CountingStore, apply, collections, history, project } from '../testing/toy-ledger';

/** The toy ledger's history projected through a slot cache, as the stores do: remembered once each batch commits. */
async function projectCached(cache: SlotCache, store = new CountingStore(), batches = history()): Promise<CountingStore> {
  for (const batch of batches) {
    const source = await prefetchingSource(new CachedDocumentSource(store, cache, collections), collections, apply, batch);
    const writes = await reduceBatch(source, collections, apply, batch);
    store.commit(writes);
    cache.committed(
      `after ${batch.at(-1)!.id}`,
      writes.map((write) => ({ write })),
    );
  }
  return store;
}

describe('CachedDocumentSource', () => {
  it('from a slot known in full (a rebuild), gives the same documents and reads nothing from the store', async () => {
    const plain = await project(false);
    const cached = await projectCached(new SlotCache(0, 'start', true, 10_000));
    expect(cached.docs).toEqual(plain.docs);
    expect(plain.single).toBeGreaterThan(100);
    expect(cached.single + cached.bulk).toBe(0);
  });

  it('from a checkpoint it knows nothing of (a catch-up), reads each document once, then answers from memory', async () => {
    const [first, ...rest] = history();
    const plain = await project(false);
    const prefetchedOnly = await project(true);
    const store = new CountingStore();
    store.commit(await reduceBatch(store, collections, apply, first!));
    store.single = 0;
    const cached = await projectCached(new SlotCache(0, 'after first', false, 10_000), store, rest);
    expect(cached.docs).toEqual(plain.docs);
    // Accounts, balances and holds are fetched once and then known: fewer reads than prefetching alone makes.
    expect(cached.bulk + cached.single).toBeLessThan(prefetchedOnly.bulk + prefetchedOnly.single);
  });

  it('reducing each batch while the one before is not yet stored (reduce-ahead) gives the same documents', async () => {
    const [first, ...rest] = history();
    const plain = await project(false);
    const store = new CountingStore();
    store.commit(await reduceBatch(store, collections, apply, first!));
    const cache = new SlotCache(0, 'after first', false, 10_000); // a catch-up: the cache knows nothing yet
    let unstored: Awaited<ReturnType<typeof reduceBatch>> = [];
    for (const batch of rest) {
      // The store lacks the previous batch's writes; the cache has them (taken when that batch was reduced).
      const source = await prefetchingSource(new CachedDocumentSource(store, cache, collections), collections, apply, batch);
      const writes = await reduceBatch(source, collections, apply, batch);
      cache.committed(
        `after ${batch.at(-1)!.id}`,
        writes.map((write) => ({ write })),
      );
      store.commit(unstored);
      unstored = writes;
    }
    store.commit(unstored);
    expect(store.docs).toEqual(plain.docs);
  });

  it('still gives the same documents when the budget is too small to hold them (collections forgotten)', async () => {
    const plain = await project(false);
    const cache = new SlotCache(0, 'start', true, 30);
    const cached = await projectCached(cache);
    expect(cached.docs).toEqual(plain.docs);
    expect(cache.complete).toBe(false);
    expect(cache.documents).toBeLessThanOrEqual(30);
    expect(cached.single + cached.bulk).toBeGreaterThan(0);
  });
});

describe('SlotCache', () => {
  const doc = (id: string, account: string, open: boolean) => ({ id, account, open });

  it('answers a filter from an index that follows each document as it changes', () => {
    const cache = new SlotCache(0, 'p', true, 100);
    cache.remember('holds', 'h1', doc('h1', 'a', true));
    expect(cache.matching('holds', { account: 'a', open: true })).toEqual([doc('h1', 'a', true)]);
    cache.remember('holds', 'h2', doc('h2', 'a', true));
    cache.remember('holds', 'h1', doc('h1', 'a', false));
    expect(cache.matching('holds', { open: true, account: 'a' })).toEqual([doc('h2', 'a', true)]);
    expect(cache.matching('holds', { account: 'a', open: false })).toEqual([doc('h1', 'a', false)]);
    expect(cache.lookup('holds', 'h3')).toBeNull(); // known in full: a miss is an absent document
  });

  it('over budget, forgets at a commit the collections no reducer read first, the largest first, and stops knowing them in full', () => {
    const cache = new SlotCache(0, 'p', true, 10);
    const writes = (collection: string, ids: string[]) => ids.map((id) => ({ write: { collection, id, doc: { id } } }));
    const range = (prefix: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${prefix}${from + i}`);
    cache.lookup('accounts', 'x'); // read
    cache.committed('p1', writes('accounts', range('a', 0, 4)));
    cache.committed('p2', writes('audits', range('u', 0, 2)));
    for (let i = 0; i < 5; i++) cache.remember('history', `r${i}`, { id: `r${i}` }); // 11 > 10, but only read or held so far
    expect(cache.knowsAll('history')).toBe(true);
    cache.committed('p3', []); // 11 > 10 at a commit: history goes
    expect(cache.knowsAll('history')).toBe(false);
    expect(cache.lookup('history', 'r0')).toBeUndefined();
    expect(cache.knowsAll('accounts')).toBe(true);
    expect(cache.knowsAll('audits')).toBe(true);
    expect(cache.documents).toBe(6);
    cache.committed('p4', writes('accounts', range('a', 4, 9))); // 11 again: audits (unread) next
    expect(cache.knowsAll('audits')).toBe(false);
    expect(cache.knowsAll('accounts')).toBe(true);
    expect(cache.complete).toBe(false);
  });
});
