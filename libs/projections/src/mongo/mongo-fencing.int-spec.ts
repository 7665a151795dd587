import { START } from '@dob/event-store';
import { CheckpointConflictError } from '../read-model-store.port';
import { credit, ledgerProjection } from '../testing/ledger.projection';
import { mongoStore, type StoreUnderTest } from '../testing/store-matrix';

/**
 * Fencing on MongoDB read models (FerretDB): the lease lives in PostgreSQL, so the fence is kept on the checkpoint
 * document. Once a new owner claimed the checkpoint (an empty commit with its token), the previous owner's commit
 * is refused and nothing of its batch lands.
 */
describe('MongoDB read-model store: commits fenced by lease token', () => {
  let s: StoreUnderTest;
  beforeEach(async () => {
    s = await mongoStore();
  });
  afterEach(() => s.close());

  it('refuses the previous owner after the new owner claimed the checkpoint', async () => {
    const def = ledgerProjection();
    const slot = { name: def.name, version: def.version, generation: 0 };
    await s.store.init();
    await s.store.createSlot(def, slot, 'catching_up');
    await s.store.activate(slot);
    await s.events.appendToStream('ledger-a', [credit(1), credit(2)]);
    await s.events.appendToStream('ledger-b', [credit(3), credit(4)]);
    const first = (await s.events.readAll({ after: START, maxCount: 2 })).events;
    const rest = (await s.events.readAll({ after: first[1].position, maxCount: 10 })).events;

    const old = { name: 'projection:ledger', token: 1 };
    const current = { name: 'projection:ledger', token: 2 };
    await s.store.commitBatch(def, slot, START, first[1].position, first, old);
    await s.store.commitBatch(def, slot, first[1].position, first[1].position, [], current); // the new owner's claim

    await expect(s.store.commitBatch(def, slot, first[1].position, rest[1].position, rest, old)).rejects.toBeInstanceOf(CheckpointConflictError);
    expect((await s.store.state(slot))!.eventsApplied).toBe(2);
    await s.store.commitBatch(def, slot, first[1].position, rest[1].position, rest, current);
    expect((await s.store.state(slot))!.eventsApplied).toBe(4);
    const times = (await s.store.documents(def, 'applied')).map((d) => d.times);
    expect(times).toEqual([1, 1, 1, 1]);
  });
});
