import type { SqlDatabase } from '@dob/sql';
import { START, type RecordedEvent } from '@dob/event-store';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import type { ProjectionDefinition, ProjectionSlot } from '../projection';
import type { ReadModelStore } from '../read-model-store.port';
import { physicalTableName } from './read-model-names';
import { createSqlReadModelStore } from './sql-read-model-store';

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

describe.each(testDatabases())('serving indexes of a slot being built on $name', (factory) => {
  let db: SqlDatabase;
  let store: ReadModelStore;

  /** The secondary indexes' columns of a slot's table (the primary key left out). */
  const indexes = async (generation: number): Promise<string[]> => {
    const { rows } = await db.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname NOT LIKE '%_pkey' ORDER BY indexdef`,
      [physicalTableName(slot(generation), 'listings')],
    );
    return rows.map((r) => r.indexdef.replace(/^.* USING btree /, '')).sort();
  };
  const ALL = ['(listed_at, id)', '(price DESC, id)', '(seller)'];

  beforeEach(async () => {
    db = await factory.create();
    store = createSqlReadModelStore(db);
    await store.init();
  });
  afterEach(async () => db.close());

  it('the first slot serves at once and has every index; a rebuild slot gets its serving indexes when activated', async () => {
    await store.createSlot(listings, slot(0), 'catching_up');
    expect(await indexes(0)).toEqual(ALL);
    await store.activate(slot(0));

    await store.createSlot(listings, slot(1), 'rebuilding');
    expect(await indexes(1)).toEqual(['(seller)']);
    const events = Array.from({ length: 30 }, (_, i) => listed(i));
    await store.commitBatch(listings, slot(1), START, events.at(-1)!.position, events);
    expect(await indexes(1)).toEqual(['(seller)']);

    await store.activate(slot(1));
    expect(await indexes(1)).toEqual(ALL);
    // Activated again (a switch repeated after a crash): nothing built twice.
    await store.activate(slot(1));
    expect(await indexes(1)).toEqual(ALL);
    expect(await store.documents(listings, 'listings')).toHaveLength(30);
  });

  it('a reset rebuilds a slot that does not serve without its serving indexes, and one that serves with all of them', async () => {
    await store.createSlot(listings, slot(0), 'catching_up');
    await store.activate(slot(0));
    await store.createSlot(listings, slot(1), 'rebuilding');

    await store.resetSlot(listings, slot(0));
    expect(await indexes(0)).toEqual(ALL);
    await store.resetSlot(listings, slot(1));
    expect(await indexes(1)).toEqual(['(seller)']);
    await store.activate(slot(1));
    expect(await indexes(1)).toEqual(ALL);
  });
});
