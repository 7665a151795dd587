import type { MongoDatabase } from '@dob/mongo';
import { createTestMongoDatabase } from '../../../mongo/src/testing/test-mongo';
import { writeGuarded, type StoredDoc, type StoredWrite } from './mongo-documents';

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
});
