import { START, type RecordedEvent } from '@dob/event-store';
import type { ProjectionDefinition, ProjectionSlot } from './projection';
import { readModelStores, type StoreUnderTest } from './testing/store-matrix';

/** One collection with a lookup index (a reducer's find) and two serving indexes (queries' sorts). */
const listings: ProjectionDefinition = {
  name: 'idx_listings',
  version: 1,
  eventTypes: ['test.listed'],
  collections: {
    listings: {
      fields: { id: 'text', seller: 'text', price: 'amount', listed_at: 'timestamp' },
      key: ['id'],
      indexes: [{ keys: ['seller'], lookup: true }, { keys: ['price desc', 'id'] }, { keys: ['listed_at', 'id'] }],
    },
  },
  async apply(state, e) {
    const d = e.data as { id: string; seller: string; price: string };
    await state.find('listings', { seller: d.seller });
    state.put('listings', { id: d.id, seller: d.seller, price: BigInt(d.price), listed_at: '2026-11-28T00:00:00.000Z' });
  },
};

const slot = (generation: number): ProjectionSlot => ({ name: 'idx_listings', version: 1, generation });
const listed = (i: number): RecordedEvent => ({
  id: `e-${i}`,
  streamId: `listing-${i}`,
  revision: 0,
  type: 'test.listed',
  version: 1,
  data: { id: `l-${i}`, seller: `s-${i % 3}`, price: String(1000 + i) },
  metadata: {},
  position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
  recordedAt: new Date(0),
});

/**
 * A slot being built (a rebuild) serves no query: it gets its primary key and lookup indexes only, and the serving
 * indexes are built in bulk when it is activated (IndexSpec.lookup). A slot that serves has every index at once.
 */
describe.each(readModelStores())('serving indexes of a slot being built on $name', (factory) => {
  let t: StoreUnderTest;
  const ALL = ['listed_at', 'price', 'seller'];
  /** The leading fields of the slot's secondary indexes, read where the store keeps the slot now. */
  const leads = async (generation: number): Promise<string[]> => {
    const state = await t.store.state(slot(generation));
    return t.indexLeads(state!.tables.listings!);
  };

  beforeEach(async () => {
    t = await factory.open();
    await t.store.init();
  });
  afterEach(async () => t.close());

  it('the first slot serves at once and has every index; a rebuild slot gets its serving indexes when activated', async () => {
    await t.store.createSlot(listings, slot(0), 'catching_up');
    expect(await leads(0)).toEqual(ALL);
    await t.store.activate(slot(0));

    await t.store.createSlot(listings, slot(1), 'rebuilding');
    expect(await leads(1)).toEqual(['seller']);
    const events = Array.from({ length: 30 }, (_, i) => listed(i));
    await t.store.commitBatch(listings, slot(1), START, events.at(-1)!.position, events);
    expect(await leads(1)).toEqual(['seller']);

    await t.store.activate(slot(1));
    expect(await leads(1)).toEqual(ALL);
    // Activated again (a switch repeated after a crash): nothing built twice.
    await t.store.activate(slot(1));
    expect(await leads(1)).toEqual(ALL);
    expect(await t.store.documents(listings, 'listings')).toHaveLength(30);
  });

  it('a reset rebuilds a slot that does not serve without its serving indexes, and one that serves with all of them', async () => {
    await t.store.createSlot(listings, slot(0), 'catching_up');
    await t.store.activate(slot(0));
    await t.store.createSlot(listings, slot(1), 'rebuilding');

    await t.store.resetSlot(listings, slot(0));
    expect(await leads(0)).toEqual(ALL);
    await t.store.resetSlot(listings, slot(1));
    expect(await leads(1)).toEqual(['seller']);
    await t.store.activate(slot(1));
    expect(await leads(1)).toEqual(ALL);
  });
});
