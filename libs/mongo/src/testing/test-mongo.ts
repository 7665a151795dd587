import { randomBytes } from 'node:crypto';
import { openMongoDatabase, type MongoDatabase } from '../mongo-database';

/** The FerretDB `npm run services` starts (MongoDB wire protocol on PostgreSQL); TEST_MONGODB_URL overrides. */
export const TEST_MONGODB_URL = process.env.TEST_MONGODB_URL ?? 'mongodb://127.0.0.1:27017/';

/** A database name of its own for a test that hands a URL to code under test; `drop()` removes it afterwards. */
export function testMongoUrl(): { url: string; drop(): Promise<void> } {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const url = `${TEST_MONGODB_URL.replace(/\/[^/]*$/, '')}/${name}`;
  return {
    url,
    async drop() {
      const m = await openMongoDatabase(url);
      try {
        await m.db.dropDatabase();
      } finally {
        await m.close();
      }
    },
  };
}

/** A database of its own for one test (random name), dropped when closed. */
export function createTestMongoDatabase(): Promise<MongoDatabase> {
  return openMongoDatabase(TEST_MONGODB_URL, {
    dbName: `t_${randomBytes(6).toString('hex')}`,
    beforeClose: async (db) => void (await db.dropDatabase()),
  });
}
