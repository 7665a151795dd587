import { SlotCache, UNREAD_COLLECTION_DOCUMENTS } from './slot-cache';

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

describe('SlotCache: collections only ever written', () => {
  const write = (id: string) => ({ write: { collection: 'entries', id, doc: { id } } });

  it('an unread collection is forgotten past its own limit, and still says its writes were all new rows', () => {
    const cache = new SlotCache(0, '0', true, 10_000_000);
    cache.committed(
      '1',
      Array.from({ length: UNREAD_COLLECTION_DOCUMENTS + 1 }, (_, i) => write(`e${i}`)),
    );
    expect([cache.knowsAll('entries'), cache.documents, cache.writesOnlyNew('entries')]).toEqual([false, 0, true]);
    // Nothing a reducer reads is missing, so batches need no read prediction — until a reducer reads it after all.
    expect([cache.complete, cache.readsComplete]).toEqual([false, true]);
    expect(cache.lookup('entries', 'e0')).toBeUndefined();
    expect(cache.readsComplete).toBe(false);
    cache.sawReplaced('entries');
    expect(cache.writesOnlyNew('entries')).toBe(false);
  });

  it('a write replacing a known document ends "only new"; a slot not built here never claims it', () => {
    const cache = new SlotCache(0, '0', true, 100);
    cache.heldAhead('1', [write('a')]);
    expect(cache.writesOnlyNew('entries')).toBe(true);
    cache.heldAhead('2', [write('a')]);
    expect(cache.writesOnlyNew('entries')).toBe(false);
    expect(new SlotCache(0, '0', false, 100).writesOnlyNew('entries')).toBe(false);
  });

  it("a backlog's cache presumes new rows until it knows of a replaced document, though it did not start complete", () => {
    const cache = new SlotCache(0, '0', false, 100, true);
    expect([cache.knowsAll('entries'), cache.writesOnlyNew('entries'), cache.knownAbsent('entries', 'a')]).toEqual([false, true, false]);
    cache.heldAhead('1', [write('a')]); // unknown before: still taken for a new row
    expect(cache.writesOnlyNew('entries')).toBe(true);
    cache.heldAhead('2', [write('a')]); // a document it knows of, written again
    expect(cache.writesOnlyNew('entries')).toBe(false);
    expect(cache.writesOnlyNew('other')).toBe(true);
    cache.sawReplaced('other'); // a COPY found a row taken
    expect(cache.writesOnlyNew('other')).toBe(false);
  });
});

describe('SlotCache.takenForNew (which writes a store may insert)', () => {
  const write = (id: string) => ({ write: { collection: 'entries', id, doc: { id } } });

  it('known absent, or unknown in a collection only ever added to; never a read, so nothing unread is kept longer', () => {
    const cache = new SlotCache(0, '0', true, 10_000_000);
    expect(cache.takenForNew('entries', 'e0')).toBe(true);
    cache.committed(
      '1',
      Array.from({ length: UNREAD_COLLECTION_DOCUMENTS + 1 }, (_, i) => write(`e${i}`)),
    );
    // Asking did not make it read: it was forgotten past the unread limit, and its writes still count as new.
    expect([cache.knowsAll('entries'), cache.takenForNew('entries', 'e0'), cache.takenForNew('entries', 'z')]).toEqual([false, true, true]);
    cache.heldAhead('2', [write('k')]);
    expect(cache.takenForNew('entries', 'k')).toBe(false); // known present again: a replace
    cache.sawReplaced('entries');
    expect(cache.takenForNew('entries', 'z')).toBe(false);
    expect(new SlotCache(0, '0', false, 100).takenForNew('entries', 'z')).toBe(false);
  });
});

describe('SlotCache.load (a backlog starting with its small collections)', () => {
  it('a loaded collection is known in full, a miss is absent, and reads need no prediction until another is read', () => {
    const cache = new SlotCache(0, '7', false, 100);
    expect(cache.readsComplete).toBe(false); // a cache that knows nothing predicts
    cache.load('pools', [['"a"', { id: 'a' }]]);
    expect([cache.knowsAll('pools'), cache.lookup('pools', '"a"'), cache.lookup('pools', '"b"'), cache.knownAbsent('pools', '"b"')]).toEqual([
      true,
      { id: 'a' },
      null,
      true,
    ]);
    expect([cache.complete, cache.readsComplete, cache.writesOnlyNew('pools')]).toEqual([false, true, false]);
    expect(cache.lookup('entries', '"x"')).toBeUndefined(); // not loaded: the store answers
    expect(cache.readsComplete).toBe(false);
    expect(() => cache.load('pools', [])).toThrow('already held');
  });
});
