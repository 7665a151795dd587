import { AppError } from '@dob/domain';
import { toMongoDependencyError, type MongoDatabase } from '@dob/mongo';
import { bumpChanges } from '@dob/projections';
import type { ReadModelReader } from '../queries/read-model-reader.port';
import { Models, bindReads, type MongoReads } from './mongo-models';
import { mongoMarketReads } from './mongo-market-reads';
import { FEATURED_OVERRIDES, mongoPoolReads, type FeaturedOverrideDoc } from './mongo-pool-reads';
import { mongoPortfolioReads } from './mongo-portfolio-reads';
import type { MongoServingWatch } from './serving-watch';
import type { FeaturedOverride } from '../featured/featured-overrides';

/**
 * How long a read waits for MongoDB before it asks whether the server is there at all, and how long that ping may
 * take. A server that froze, or a network dropping packets, sends no error, and the driver sets no socket timeout: a
 * read on an open connection waited until the driver's monitor gave the server up — 5 to 12 s, serving watch or not
 * (mongo-away.int-spec.ts, "silenced"). A read that is only slow (FerretDB scans and sorts in Go) on a server that
 * answers the ping goes on: a fixed deadline would turn slow-but-right answers into 503s at volume.
 */
export const MONGO_READ_PATIENCE_MS = 1000;
export const MONGO_PING_TIMEOUT_MS = 500;

export interface MongoReaderOptions {
  /** Results kept per change token (least recently used go first); 0 = no cache. Default 2000. */
  readonly cacheEntries?: number;
  /**
   * The serving collections and token polled in the background (serving-watch.ts): reads skip the bookkeeping
   * round trip while its view is within its staleness bound. Unset: every read resolves them itself.
   */
  readonly serving?: MongoServingWatch;
  /** How long a read waits before it pings the server (default MONGO_READ_PATIENCE_MS), and the ping's limit. */
  readonly patienceMs?: number;
  readonly pingTimeoutMs?: number;
}

/**
 * The read models in MongoDB (or FerretDB). Every read first resolves the serving collections and a change token
 * from the projections' bookkeeping (one find: collections are per slot, so a blue/green switch or a reset is seen
 * by the next read), then finds, sorts, skips and limits in the database; joins (pool names, member counts, token
 * symbols) are lookups by key, and aggregates the SQL store leaves to the database (sums of i128 amounts, min/max)
 * are computed here exactly — FerretDB 1.x has no $lookup and no $group accumulators beyond $sum/$count.
 *
 * Results are cached per token: the token changes with every checkpoint move, switch, reset and featured-override
 * change, so a cached answer is never served after the read models changed (clock-dependent reads pass `now`).
 */
export function createMongoReadModelReader(mongo: Pick<MongoDatabase, 'db'>, options: MongoReaderOptions = {}): ReadModelReader {
  const cache = new TokenCache(options.cacheEntries ?? 2000);
  let inFlight: Promise<{ models: Models; token: string }> | undefined;
  // Reads issued together (Promise.all in the services) share one resolution of the serving collections.
  const resolve = (): Promise<{ models: Models; token: string }> => {
    inFlight ??= Models.open(mongo.db).finally(() => queueMicrotask(() => (inFlight = undefined)));
    return inFlight;
  };
  const serving = options.serving;
  const open = serving ? () => serving.view() : resolve;
  const reads: MongoReads<ReadModelReader> = {
    ...mongoPoolReads,
    ...mongoMarketReads,
    ...mongoPortfolioReads,
    learnedTokens: (m: Models) => m.learnedTokens(),
  };
  const patience = { everyMs: options.patienceMs ?? MONGO_READ_PATIENCE_MS, pingMs: options.pingTimeoutMs ?? MONGO_PING_TIMEOUT_MS };
  const ping = () => mongo.db.command({ ping: 1 });
  return bindReads(reads, (name, read) => {
    const cachedRead = async (...args: never[]) => {
      try {
        const view = await open();
        const key = `${name}\u0000${JSON.stringify(args, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
        const hit = cache.get(view.token, key);
        if (hit !== undefined) return hit;
        const value = await read(view.models, ...args);
        cache.set(view.token, key, value);
        return value;
      } catch (e) {
        throw toMongoDependencyError(e); // MongoDB away: 503 + Retry-After, not a driver error reaching the API
      }
    };
    return (...args: never[]) => whileAlive(cachedRead(...args), ping, patience);
  });
}

/**
 * The read's answer; while it has none, the server is pinged every `everyMs`, and a ping without an answer within
 * `pingMs` fails the read as MongoDB unavailable (503 + Retry-After) — a silent server must not hold the request.
 */
export function whileAlive<T>(read: Promise<T>, ping: () => Promise<unknown>, o: { everyMs: number; pingMs: number }): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const silent = new Promise<never>((_, reject) => {
    const check = () => {
      timer = setTimeout(() => {
        const late = setTimeout(() => reject(AppError.dependencyUnavailable('mongodb', new Error(`no answer to a ping within ${o.pingMs} ms`))), o.pingMs);
        ping().then(
          () => {
            clearTimeout(late);
            if (!done) check(); // alive: the read is only slow
          },
          (e: unknown) => {
            clearTimeout(late);
            reject(AppError.dependencyUnavailable('mongodb', e));
          },
        );
      }, o.everyMs);
    };
    check();
  });
  silent.catch(() => undefined); // settled only when the read is not
  return Promise.race([read, silent]).finally(() => {
    done = true;
    clearTimeout(timer);
  });
}

/** Results for one token at a time: a new token (the read models changed) empties it. */
class TokenCache {
  private token = '';
  private readonly entries = new Map<string, unknown>();

  constructor(private readonly max: number) {}

  get(token: string, key: string): unknown {
    if (this.max === 0 || token !== this.token) return undefined;
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key); // most recently used last
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(token: string, key: string, value: unknown): void {
    if (this.max === 0) return;
    if (token !== this.token) {
      this.token = token;
      this.entries.clear();
    }
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** Operator picks in MongoDB: set or replace one, and tell readers' caches (the `changes:featured` counter). */
export async function setMongoFeaturedOverride(mongo: Pick<MongoDatabase, 'db'>, o: FeaturedOverride): Promise<void> {
  const doc: FeaturedOverrideDoc = {
    _id: JSON.stringify([o.networkId, o.address]),
    network_id: o.networkId,
    address: o.address,
    reason: o.reason,
    position: o.position,
  };
  await mongo.db.collection<FeaturedOverrideDoc>(FEATURED_OVERRIDES).replaceOne({ _id: doc._id }, doc, { upsert: true });
  await bumpChanges(mongo.db, FEATURED_OVERRIDES);
}

export async function clearMongoFeaturedOverride(mongo: Pick<MongoDatabase, 'db'>, networkId: number, address: string): Promise<void> {
  await mongo.db.collection<FeaturedOverrideDoc>(FEATURED_OVERRIDES).deleteOne({ _id: JSON.stringify([networkId, address]) });
  await bumpChanges(mongo.db, FEATURED_OVERRIDES);
}
