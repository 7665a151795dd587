import type { ActiveApiKey, ApiKeyIndex } from './api-key-index.port';
import type { KeyChangeSignal } from './key-change-signal.port';
import type { WalletKey } from '../wallet/wallet-keys.aggregate';

/**
 * Key lookups of the guard kept in memory on a database several API instances write (PostgreSQL), so a request
 * with a known key costs no database round trip. Validity comes from the shared epoch (KeyChangeSignal), not from
 * how fast a notification travels:
 * - every write to the index (project, suspend) announces a fresh epoch after it commits and before the command
 *   answers;
 * - every request's rate-limit decision reads the epoch in the limiter's own round trip; the request gate hands it
 *   to `confirmCache` with the stamp taken before its lookup: if any epoch change was adopted since (this one or
 *   another request's), the cache is emptied and the request is decided again from the database.
 * Why that makes a revoke immediate: a lookup stands only if the cache stayed under one epoch E from before the
 * lookup until the request's own decision read E again in Redis; an entry is stored only if no change was adopted
 * while it was read, and it was read after E was seen in Redis. A revoke that answered before the request started
 * replaced E in Redis before the decision read it (epochs are random, never reused), so the lookup cannot stand —
 * unless E was itself set after the revoke's commit, in which case the entry was read after the commit too.
 * Unknown keys are never cached (a key created later needs no invalidation); notifications (`listen`) only empty
 * the cache sooner, and a reconnect (`null`) empties it because messages may have been missed.
 */
export class SharedKeyCache implements ApiKeyIndex {
  private readonly entries = new Map<string, ActiveApiKey>();
  private epoch: string | null = null;
  private generation = 0;
  private unlisten: (() => Promise<void>) | undefined;

  private constructor(
    private readonly index: ApiKeyIndex,
    private readonly signal: KeyChangeSignal,
    private readonly maxEntries: number,
  ) {}

  static async over(index: ApiKeyIndex, signal: KeyChangeSignal, maxEntries = 10_000): Promise<SharedKeyCache> {
    const cache = new SharedKeyCache(index, signal, maxEntries);
    cache.unlisten = await signal.listen((epoch) => cache.adoptEpoch(epoch));
    return cache;
  }

  /** If `epoch` differs from the one the entries were read under, they are dropped. `null` = unknown. */
  adoptEpoch(epoch: string | null): void {
    if (epoch !== null && epoch === this.epoch) return;
    this.epoch = epoch;
    this.generation++;
    this.entries.clear();
  }

  cacheStamp(): number {
    return this.generation;
  }

  /** A lookup made at `stamp` stands iff no epoch change was adopted since, this request's `epoch` included. */
  confirmCache(stamp: number, epoch: string): boolean {
    this.adoptEpoch(epoch);
    return stamp === this.generation;
  }

  async findActiveByHash(keyHash: string, options: { fresh?: boolean } = {}): Promise<ActiveApiKey | null> {
    if (!options.fresh) {
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

  findWalletOfKey(keyId: string): Promise<string | null> {
    return this.index.findWalletOfKey(keyId);
  }

  async project(wallet: string, revision: number, keys: readonly WalletKey[]): Promise<void> {
    await this.index.project(wallet, revision, keys);
    await this.signal.announce();
  }

  async suspend(keyId: string): Promise<void> {
    await this.index.suspend(keyId);
    await this.signal.announce();
  }

  recordLastUsed(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    return this.index.recordLastUsed(lastUsed);
  }

  lastUsed(wallet: string): Promise<Map<string, Date>> {
    return this.index.lastUsed(wallet);
  }

  async close(): Promise<void> {
    this.adoptEpoch(null);
    await this.unlisten?.();
  }
}
