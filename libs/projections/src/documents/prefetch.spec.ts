import { PREFETCH_MIN_EVENTS, prefetchingSource } from './prefetch';
import { CountingStore, apply, collections, history, project } from '../testing/toy-ledger';

describe('prefetchingSource', () => {
  it('gives the same documents as reading key by key, with a handful of bulk reads instead of one read per key', async () => {
    const plain = await project(false);
    const prefetched = await project(true);
    expect(prefetched.docs).toEqual(plain.docs);
    expect(plain.single).toBeGreaterThan(100);
    expect(plain.bulk).toBe(0);
    // Per batch at most two rounds of one bulk read per collection read; unpredicted reads stay single and few.
    expect(prefetched.bulk).toBeGreaterThan(0);
    expect(prefetched.bulk).toBeLessThanOrEqual(4 * 2 * 4);
    expect(prefetched.single).toBeLessThan(plain.single / 10);
  });

  it('leaves small batches (live latency) reading key by key', async () => {
    const store = new CountingStore();
    const small = history()[1]!.slice(0, PREFETCH_MIN_EVENTS - 1);
    expect(await prefetchingSource(store, collections, apply, small)).toBe(store);
  });
});
