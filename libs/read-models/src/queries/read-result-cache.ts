import { READ_MODELS_CHANGED_CHANNEL } from '@dob/projections';
import type { SqlDatabase, SqlExecutor, SqlResult } from '@dob/sql';

export interface ReadResultCacheOptions {
  /** Most results kept (least recently used go first). */
  readonly maxEntries?: number;
  /**
   * Longest a result is served without asking the database again. The fallback bound on staleness if a
   * notification is lost (e.g. the LISTEN connection drops); normally a change clears the cache at once.
   */
  readonly maxAgeMs?: number;
  readonly clock?: () => number;
}

export interface ReadResultCache {
  /** Give this to createReadQueries({ db }) (a SQL reader): reads through the cache, everything else straight to the database. */
  readonly db: SqlExecutor;
  /** Forgets every result (what a change notification does). */
  invalidate(): void;
  /**
   * Moves on every change of the read models (each invalidation); undefined while changes cannot be observed (no
   * LISTEN). What caches of answers derived from these results key on (the API's response cache).
   */
  readonly generation: number | undefined;
  readonly stats: { hits: number; misses: number };
  close(): Promise<void>;
}

/**
 * Query results of the read models, kept between requests until the read models change. Read models change only
 * when the projection runner commits, which NOTIFYs READ_MODELS_CHANGED_CHANNEL (as do operator writes such as featured
 * overrides), so a result stays valid until the next notification; clock-dependent queries pass `now` as a
 * parameter and so never share an entry across instants.
 *
 * Races: a query that started before a change may finish after its notification; its result is then not stored
 * (the generation it started in has ended). On PostgreSQL the notification reaches other processes shortly after
 * COMMIT, so another instance may serve the previous state for that moment — what an asynchronous read model
 * does anyway. If LISTEN cannot be set up, or while its connection is lost, nothing is cached; entries also expire
 * after `maxAgeMs`.
 * Cached rows are frozen and shared between callers: the query services only read them.
 */
export async function createReadResultCache(db: SqlDatabase, options: ReadResultCacheOptions = {}): Promise<ReadResultCache> {
  const cache = new Cache(db, options);
  try {
    cache.unlisten = await db.listen(
      READ_MODELS_CHANGED_CHANNEL,
      () => cache.invalidate(),
      // Changes are unobservable while LISTEN is down: cache nothing then (generation undefined, so the API's
      // response cache stops too), and start empty once it is back — what changed meanwhile was never notified.
      (connected) => cache.observing(connected),
    );
    cache.enabled = true;
  } catch {
    cache.enabled = false; // safe fallback: every read goes to the database
  }
  return cache;
}

const READ = /^\s*(SELECT|WITH)\b/i;

interface Entry {
  readonly result: SqlResult<unknown>;
  readonly at: number;
}

class Cache implements ReadResultCache {
  readonly db: SqlExecutor;
  readonly stats = { hits: 0, misses: 0 };
  enabled = false;
  unlisten: (() => Promise<void>) | undefined;
  private changes = 0;
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly source: SqlDatabase,
    options: ReadResultCacheOptions,
  ) {
    this.maxEntries = options.maxEntries ?? 2000;
    this.maxAgeMs = options.maxAgeMs ?? 1000;
    // Ages on the monotonic clock: on the wall clock a step back (NTP, a resumed VM) made old entries look young.
    this.clock = options.clock ?? (() => performance.now());
    this.db = {
      query: (text, params) => this.query(text, params),
      exec: (text) => this.exec(text),
      copyIn: (table, columns, text) => this.copyIn(table, columns, text),
    };
  }

  get generation(): number | undefined {
    return this.enabled ? this.changes : undefined;
  }

  invalidate(): void {
    this.changes++;
    this.entries.clear();
  }

  observing(connected: boolean): void {
    this.invalidate();
    this.enabled = connected;
  }

  private async query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    if (!this.enabled || !READ.test(text)) return this.source.query<R>(text, params);
    const key = `${text}\u0000${JSON.stringify(params ?? [], (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
    const now = this.clock();
    const hit = this.entries.get(key);
    if (hit && now - hit.at <= this.maxAgeMs) {
      this.stats.hits++;
      this.entries.delete(key); // most recently used last (Map keeps insertion order)
      this.entries.set(key, hit);
      return hit.result as SqlResult<R>;
    }
    this.stats.misses++;
    const generation = this.changes;
    const result = await this.source.query<R>(text, params);
    if (generation === this.changes) {
      for (const row of result.rows) Object.freeze(row);
      Object.freeze(result.rows);
      this.entries.delete(key);
      this.entries.set(key, { result, at: now });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return result;
  }

  private async exec(text: string): Promise<void> {
    await this.source.exec(text);
    this.invalidate();
  }

  private async copyIn(table: string, columns: readonly string[], text: string): Promise<void> {
    await this.source.copyIn(table, columns, text);
    this.invalidate();
  }

  async close(): Promise<void> {
    this.enabled = false;
    this.invalidate();
    await this.unlisten?.();
  }
}
