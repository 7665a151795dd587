import { SlotCache } from '../documents/slot-cache';
import { BuildBuffer } from './build-buffer';
import { DocumentCodec, ReducedWrite } from './mongo-documents';
import type { SlotDoc } from './mongo-layout';

const slot = { _id: 'slot:pools@v1.g1', position: '0:0', events_applied: 7 } as SlotDoc;

const balances = new DocumentCodec({ fields: { id: 'text', balance: 'int' }, key: ['id'] });

function write(id: string, commit: bigint, fresh: boolean, balance: number): ReducedWrite {
  return new ReducedWrite({ collection: 'balances', id, doc: { id, balance }, position: { commit, prepare: commit } }, 'rm_balances', fresh, balances);
}

describe('BuildBuffer', () => {
  it('keeps each document once in its last state, absent-on-the-server while its first write said so', () => {
    const cache = new SlotCache(0, slot.position, true, 1000);
    const buffer = new BuildBuffer(slot, cache);
    buffer.add([write('a', 1n, true, 1), write('b', 1n, false, 1)], '1:1', 3, undefined);
    buffer.add([write('a', 2n, false, 2)], '2:2', 2, undefined);

    const { writes, events } = buffer.contents();
    expect(events).toBe(5);
    const stored = writes.map((w) => w.stored());
    expect(stored.map((w) => [w.doc._id, w.doc._pos, w.doc.balance, w.fresh])).toEqual([
      [balances.encode({ id: 'a', balance: 2 }, writes[0]!.pos)._id, writes[0]!.pos, 2, true],
      [balances.encode({ id: 'b', balance: 1 }, writes[1]!.pos)._id, writes[1]!.pos, 1, false],
    ]);
    // Encoded only when written: the buffer holds the reducers' documents, no second copy.
    expect(writes[0]!.write.doc).toEqual({ id: 'a', balance: 2 });
    expect(writes[1]!.pos < writes[0]!.pos).toBe(true);
    expect(buffer.position).toBe('2:2');
    // The cache moved with the buffer: the next batch reduces from the buffered state.
    expect(cache.position).toBe('2:2');
    expect(cache.lookup('balances', 'a')).toEqual({ id: 'a', balance: 2 });
  });

  it('is due at either limit, and empty again once written out', () => {
    const buffer = new BuildBuffer(slot, new SlotCache(0, slot.position, true, 1000));
    buffer.add([write('a', 1n, true, 1)], '1:1', 4, undefined);
    expect(buffer.full({ events: 5, documents: 2 })).toBe(false);
    expect(buffer.full({ events: 4, documents: 2 })).toBe(true);
    expect(buffer.full({ events: 5, documents: 1 })).toBe(true);

    buffer.written({ ...slot, position: '1:1', events_applied: 11 });
    expect(buffer.contents()).toEqual({ writes: [], events: 0 });
    expect(buffer.slot.position).toBe('1:1');
    expect(buffer.full({ events: 1, documents: 1 })).toBe(false);
  });
});
