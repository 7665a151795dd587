import { AppError } from '@dob/domain';
import type { ActiveApiKey, ApiKeyIndex } from './api-key-index.port';
import type { KeyChangeSignal } from './key-change-signal.port';
import type { WalletKey } from '../wallet/wallet-keys.aggregate';

/** How long an epoch read vouches for the cache, how often it is renewed (docs/auth.md "Key cache"). */
export interface KeyCacheLease {
  /** Entries are served only within this many ms of the start of the last epoch read; a key change answers after it. */
  readonly leaseMs: number;
  /** The epoch is read this often (a few reads per lease, so one slow read does not empty the cache). */
  readonly refreshEveryMs: number;
  /** Added to the writer's wait for clock-rate differences between instances (ms). */
  readonly marginMs: number;
}

/**
 * A failed epoch read leaves the lookup to the database, unless the database is away (the adapter's 503-class
 * AppError): the epoch and the keys live in the same one, so asking it again would wait out a second connect timeout
 * and an unknown key's 503 came after ≈ 2 s instead of within the 1-s timeout (issue 31's bound; CI saw 2,009 ms).
 */
function unlessAway(e: unknown): void {
  if (e instanceof AppError && e.code === 'SERVICE_UNAVAILABLE') throw e;
}

/** Every instance of a deployment must use the same lease: a writer waits for the longest lease a reader may hold. */
export const KEY_CACHE_LEASE: KeyCacheLease = { leaseMs: 300, refreshEveryMs: 75, marginMs: 25 };

/**
 * Key lookups of the guard kept in memory on a database several API instances write (PostgreSQL), so a request with
 * a known key costs no round trip at all. Validity comes from a time-bounded lease on the key epoch
 * (KeyChangeSignal), not from how fast a notification travels:
 * - every change to a key's admission bumps the epoch in its own statement, and a command that changed keys
 *   answers only `leaseMs + marginMs` after that commit (`project`);
 * - the cache reads the epoch every `refreshEveryMs`; a read that finds another epoch empties the cache; entries are
 *   served only while `now < (start of the last epoch read) + leaseMs`, otherwise the request reads the epoch first.
 * Why a change is seen by every request that starts after its command answered (at A ≥ commit + lease): serving at
 * r > A needs an epoch read that started after r − lease > commit, so it returned the new epoch; the cache adopted it
 * (emptying itself) unless it already held it, and every entry held under an epoch adopted after the commit was
 * read from the database after that adoption (a lookup that overlapped an adoption is not stored), hence after the
 * commit. A read that started before the commit vouches only until commit + lease ≤ A.
 * Unknown keys are never cached (a key created later needs no invalidation); notifications (`listen`) only empty the
 * cache sooner. If the epoch cannot be read, nothing is served from memory: every request reads the database.
 */
export class SharedKeyCache implements ApiKeyIndex {
  private readonly entries = new Map<string, ActiveApiKey>();
  private epoch: string | null = null;
  private generation = 0;
  private validUntil = -Infinity;
  private reading: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;

  private constructor(
    private readonly index: ApiKeyIndex,
    private readonly signal: KeyChangeSignal,
    private readonly lease: KeyCacheLease,
    private readonly clock: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly maxEntries: number,
  ) {}

  /** `clock` (ms, monotonic) and `sleep` are injectable for tests; both default to real time. */
  static async over(
    index: ApiKeyIndex,
    signal: KeyChangeSignal,
    options: { lease?: KeyCacheLease; clock?: () => number; sleep?: (ms: number) => Promise<void>; maxEntries?: number } = {},
  ): Promise<SharedKeyCache> {
    const cache = new SharedKeyCache(
      index,
      signal,
      options.lease ?? KEY_CACHE_LEASE,
      options.clock ?? (() => performance.now()),
      options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      options.maxEntries ?? 10_000,
    );
    cache.unlisten = await signal.listen(() => cache.forget()).catch(() => undefined);
    await cache.readEpoch().catch(() => undefined);
    cache.timer = setInterval(() => void cache.readEpoch().catch(() => undefined), cache.lease.refreshEveryMs);
    cache.timer.unref();
    return cache;
  }

  /** Drops every entry; lookups in flight are not stored. */
  forget(): void {
    this.generation++;
    this.entries.clear();
  }

  /**
   * Reads the epoch (one read at a time; callers share the one in flight). The lease runs from the read's start,
   * which precedes the value it returns.
   */
  readEpoch(): Promise<void> {
    this.reading ??= (async () => {
      const startedAt = this.clock();
      try {
        const epoch = await this.signal.readEpoch();
        if (epoch !== this.epoch) {
          this.epoch = epoch;
          this.forget();
        }
        this.validUntil = Math.max(this.validUntil, startedAt + this.lease.leaseMs);
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  private leased(): boolean {
    return this.clock() < this.validUntil;
  }

  async findActiveByHash(keyHash: string): Promise<ActiveApiKey | null> {
    if (!this.leased()) await this.readEpoch().catch(unlessAway);
    if (this.leased()) {
      const hit = this.entries.get(keyHash);
      if (hit) return hit;
    }
    const generation = this.generation;
    const key = await this.index.findActiveByHash(keyHash);
    if (key && generation === this.generation && this.epoch !== null) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(keyHash, key);
    }
    return key;
  }

  cachedActiveByHash(keyHash: string): ActiveApiKey | undefined {
    return this.leased() ? this.entries.get(keyHash) : undefined;
  }

  findWalletOfKey(keyId: string): Promise<string | null> {
    return this.index.findWalletOfKey(keyId);
  }

  /** Answers only once every other instance's lease on the epoch before this change has run out. */
  async project(wallet: string, revision: number, keys: readonly WalletKey[]): Promise<void> {
    await this.index.project(wallet, revision, keys);
    this.forget();
    await this.sleep(this.lease.leaseMs + this.lease.marginMs);
  }

  /**
   * The fail-safe before a revoke/rotate is appended: no wait here, the `project` that completes the command waits
   * (its commit is later than this one); a command that fails after suspending promised nothing.
   */
  async suspend(keyId: string): Promise<void> {
    await this.index.suspend(keyId);
    this.forget();
  }

  recordLastUsed(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    return this.index.recordLastUsed(lastUsed);
  }

  lastUsed(wallet: string): Promise<Map<string, Date>> {
    return this.index.lastUsed(wallet);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.validUntil = -Infinity;
    this.forget();
    await this.unlisten?.();
  }
}
