import { SlotCache } from './slot-cache';

describe('SlotCache budget', () => {
  const write = (id: string) => ({ write: { collection: 'counts', id, doc: { id } } });

  it('a batch held ahead of its commit is never forgotten; the next commit forgets once nothing is in flight', () => {
    const cache = new SlotCache(0, '0', true, 3);
    cache.heldAhead('1', ['a', 'b', 'c', 'd', 'e'].map(write));
    expect([cache.overBudget, cache.complete, cache.lookup('counts', 'a')]).toEqual([true, true, { id: 'a' }]);
    cache.committed('2', [write('f')]);
    expect([cache.overBudget, cache.complete, cache.lookup('counts', 'a')]).toEqual([false, false, undefined]);
  });
});

describe('SlotCache.knownAbsent (which writes are new rows)', () => {
  const doc = { id: 'x' };

  it('a slot created empty here: every document it has not written is absent, and asking reads nothing', () => {
    const cache = new SlotCache(0, '0', true, 10);
    expect(cache.knownAbsent('pools', 'a')).toBe(true);
    cache.remember('pools', 'a', doc);
    expect(cache.knownAbsent('pools', 'a')).toBe(false);
    expect(cache.knownAbsent('pools', 'b')).toBe(true);
  });

  it('a slot found with documents: absent only where a read found nothing', () => {
    const cache = new SlotCache(0, '0', false, 10);
    expect(cache.knownAbsent('pools', 'a')).toBe(false);
    cache.remember('pools', 'a', null);
    expect(cache.knownAbsent('pools', 'a')).toBe(true);
  });

  it('a forgotten collection is no longer known: its writes are not taken for new rows', () => {
    const cache = new SlotCache(0, '0', true, 3);
    const write = (id: string) => ({ write: { collection: 'entries', id, doc } });
    cache.committed('1', ['a', 'b', 'c', 'd'].map(write)); // past the budget: forgotten
    expect(cache.complete).toBe(false);
    expect(cache.knownAbsent('entries', 'a')).toBe(false);
    expect(cache.knownAbsent('entries', 'z')).toBe(false);
    expect(cache.knownAbsent('pools', 'z')).toBe(true); // another collection is still known in full
  });
});
