import { MongoClient, type Db } from 'mongodb';
import { detectCapabilities, type MongoCapabilities } from './capabilities';

/** A connected MongoDB-protocol database (MongoDB, or FerretDB in tests) and what its server can do. */
export interface MongoDatabase {
  readonly client: MongoClient;
  readonly db: Db;
  readonly capabilities: MongoCapabilities;
  close(): Promise<void>;
}

export interface MongoDatabaseOptions {
  /** Database name; default the URL's path, else `dob`. */
  readonly dbName?: string;
  /** Run before the client closes (e.g. a test dropping its database). */
  readonly beforeClose?: (db: Db) => Promise<void>;
}

/** The database named in a mongodb:// URL's path, if any. */
export function databaseNameOf(url: string): string | undefined {
  const m = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(url);
  return m?.[1] ? decodeURIComponent(m[1]) : undefined;
}

/**
 * Connects with the official driver (mongodb 6.x: the MongoDB-maintained client, speaks to MongoDB 7 replica sets
 * and to FerretDB alike) and asks the server what it is: `hello` (replica set or not) and `buildInfo` (FerretDB
 * identifies itself there), which decide whether batches may use transactions.
 */
export async function openMongoDatabase(url: string, options: MongoDatabaseOptions = {}): Promise<MongoDatabase> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const db = client.db(options.dbName ?? databaseNameOf(url) ?? 'dob');
    const admin = client.db('admin');
    const [hello, buildInfo] = await Promise.all([admin.command({ hello: 1 }), admin.command({ buildInfo: 1 })]);
    return {
      client,
      db,
      capabilities: detectCapabilities(hello, buildInfo),
      close: async () => {
        try {
          await options.beforeClose?.(db);
        } finally {
          await client.close();
        }
      },
    };
  } catch (e) {
    await client.close();
    throw e;
  }
}
