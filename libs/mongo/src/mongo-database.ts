import { MongoClient, type Db } from 'mongodb';
import { detectCapabilities, type MongoCapabilities } from './capabilities';
import { isMongoConnectionError } from './connection-errors';

/** A connected MongoDB-protocol database (MongoDB, or FerretDB in tests) and what its server can do. */
export interface MongoDatabase {
  readonly client: MongoClient;
  readonly db: Db;
  readonly capabilities: MongoCapabilities;
  close(): Promise<void>;
}

/**
 * How long an operation waits for a server to select (and a connection to open) before it fails as MongoDB
 * unavailable — 503 + Retry-After at the API, within the 2 s a request may wait for a dependency (issue 31).
 */
export const MONGO_SELECTION_TIMEOUT_MS = 1000;
/** How long the first connection is retried: a server starting beside the app gets this long. */
export const MONGO_FIRST_CONNECT_WITHIN_MS = 10_000;

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
  const client = new MongoClient(url, { serverSelectionTimeoutMS: MONGO_SELECTION_TIMEOUT_MS, connectTimeoutMS: MONGO_SELECTION_TIMEOUT_MS });
  await connectWithin(client, MONGO_FIRST_CONNECT_WITHIN_MS);
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

async function connectWithin(client: MongoClient, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await client.connect();
      return;
    } catch (e) {
      if (!isMongoConnectionError(e) || Date.now() >= deadline) throw e;
    }
  }
}
