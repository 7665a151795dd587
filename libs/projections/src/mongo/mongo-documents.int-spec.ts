import type { MongoDatabase } from '@dob/mongo';
import { createTestMongoDatabase } from '../../../mongo/src/testing/test-mongo';
import { SlotCache } from '../documents/slot-cache';
import type { CollectionSpecs } from '../documents/collections';
import { MongoDocumentSource, codecs, storable, writeGuarded, writeUnserved, type StoredDoc, type StoredWrite } from './mongo-documents';

/** More than FerretDB's pool of PostgreSQL connections (50 unless its URL says otherwise). */
const DOCS = 120;
const ANSWER_WITHIN_MS = 30_000;

const doc = (i: number, pos: string, value: number): StoredDoc => ({ _id: `pool-${i}`, _pos: pos, value });

function answered<T>(what: Promise<T>): Promise<T> {
  let timer!: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s: the server is locked up`)), ANSWER_WITHIN_MS);
  });
  return Promise.race([what, late]).finally(() => clearTimeout(timer));
}

describe('writeGuarded on the MongoDB-protocol server of npm run services', () => {
  let mongo: MongoDatabase;
  beforeAll(async () => {
    mongo = await createTestMongoDatabase();
  });
  afterAll(async () => {
    await mongo?.close();
  });

  it(`replaces ${DOCS} stored documents in one batch without locking the server up, and never with an older state`, async () => {
    const c = mongo.db.collection<StoredDoc>('pools');
    await c.insertMany(Array.from({ length: DOCS }, (_, i) => doc(i, '0001', 1)));

    // Every document known (stored): each write is a guarded replace. On FerretDB 1.24 these as one bulk command
    // held a PostgreSQL connection per replace and waited for one more: the server never answered again.
    const newer: StoredWrite[] = Array.from({ length: DOCS }, (_, i) => ({ c: 'pools', doc: doc(i, '0002', 2), fresh: false }));
    await answered(writeGuarded(mongo.db, newer, mongo.capabilities));
    // A write already applied, or an older one arriving late, changes nothing.
    const older: StoredWrite[] = Array.from({ length: DOCS }, (_, i) => ({ c: 'pools', doc: doc(i, '0001', 9), fresh: false }));
    await answered(writeGuarded(mongo.db, [...newer, ...older], mongo.capabilities));

    const stored = await c.find({}).sort({ _id: 1 }).toArray();
    expect(stored).toHaveLength(DOCS);
    expect(stored.every((d) => d._pos === '0002' && d.value === 2)).toBe(true);
    expect(await answered(mongo.db.command({ ping: 1 }))).toMatchObject({ ok: 1 });
  });

  it('writeUnserved replaces what is older with one delete and one insert, and keeps what is as new or newer', async () => {
    const c = mongo.db.collection<StoredDoc>('rebuilding');
    // A batch of positions 0005..0006 over a slot last checkpointed at 0004: documents 0-9 are from earlier batches,
    // 10-14 already hold this batch's state (a finish repeated), 15-19 a later batch's (a slower process's batch).
    await c.insertMany([
      ...Array.from({ length: 10 }, (_, i) => doc(i, '0003', 1)),
      ...Array.from({ length: 5 }, (_, i) => doc(10 + i, i % 2 ? '0006' : '0005', 2)),
      ...Array.from({ length: 5 }, (_, i) => doc(15 + i, '0009', 3)),
    ]);
    const batch: StoredWrite[] = [
      ...Array.from({ length: 20 }, (_, i) => ({ c: 'rebuilding', doc: doc(i, i % 2 ? '0006' : '0005', 2), fresh: false })),
      ...Array.from({ length: 3 }, (_, i) => ({ c: 'rebuilding', doc: doc(20 + i, '0006', 2), fresh: true })),
    ];
    let cleared = 0;
    // A slower process's stale state of pool-3 lands between the delete and the insert: replaced, not kept.
    const straggler = async () => {
      cleared++;
      await c.insertOne(doc(3, '0003', 9));
    };
    await answered(writeUnserved(mongo.db, batch.map(storable), straggler));

    const stored = new Map((await c.find({}).toArray()).map((d) => [d._id, `${d._pos}=${d.value}`]));
    const want = new Map(batch.map(({ doc: d }, i) => [d._id, i >= 15 && i < 20 ? '0009=3' : `${d._pos}=2`]));
    expect(stored).toEqual(want);
    expect(cleared).toBe(1);
    // Again, as a finish after a crash between the delete and the insert: nothing changes, nothing is lost.
    await c.deleteMany({ _id: { $in: ['pool-1', 'pool-2'] } });
    await answered(writeUnserved(mongo.db, batch.map(storable)));
    expect(new Map((await c.find({}).toArray()).map((d) => [d._id, `${d._pos}=${d.value}`]))).toEqual(want);
  });

  it('writeUnserved inserts thousands side by side, and a document found taken in one lane keeps the newer state', async () => {
    const c = mongo.db.collection<StoredDoc>('lanes');
    // Three commands over two lanes; a later batch's state of one document is already stored (a slower process's).
    await c.insertOne(doc(1_210, '0009', 3));
    const batch: StoredWrite[] = Array.from({ length: 2_100 }, (_, i) => ({ c: 'lanes', doc: doc(i, '0005', 2), fresh: true }));
    await answered(writeUnserved(mongo.db, batch.map(storable)));
    const stored = await c.find({}).toArray();
    expect(stored).toHaveLength(2_100);
    expect(stored.filter((d) => d.value !== 2).map((d) => [d._id, d._pos, d.value])).toEqual([['pool-1210', '0009', 3]]);
  });

  it('reads a stored document written above its bound as absent (what an undone write-out left in a slot being built)', async () => {
    const specs: CollectionSpecs = { pools: { fields: { pool: 'text', value: 'int' }, key: ['pool'] } };
    const c = mongo.db.collection<StoredDoc>('bounded_reads');
    const stored = (pool: string, pos: string, value: number): StoredDoc => ({ _id: JSON.stringify([pool]), _pos: pos, pool, value });
    await c.insertMany([stored('a', '0001', 1), stored('b', '0005', 5), stored('c', '0002', 2)]);
    const source = (notAbove?: string) =>
      new MongoDocumentSource(mongo.db, { pools: 'bounded_reads' }, codecs(specs), new SlotCache(0, 'x', false, 1000), undefined, notAbove);
    const bounded = source('0003');
    expect(await bounded.get('pools', { pool: 'a' })).toEqual({ pool: 'a', value: 1 });
    expect(await bounded.get('pools', { pool: 'b' })).toBeNull();
    expect((await bounded.find('pools', {})).map((d) => d.pool).sort()).toEqual(['a', 'c']);
    // Unbounded (a serving slot): every stored document stands.
    expect(await source().get('pools', { pool: 'b' })).toEqual({ pool: 'b', value: 5 });
  });
});
