import type { SqlDatabase } from '@dob/sql';
import type { ActiveApiKey, ApiKeyIndex } from '../keys/api-key-index.port';
import type { WalletKey } from '../wallet/wallet-keys.aggregate';

/** NOTIFY channel the SQL key index signals after every change to a key's admission (project, suspend). */
export const API_KEYS_CHANGED = 'auth_api_keys_changed';

/**
 * Key lookups of the guard kept in memory — ONLY on embedded PGlite. There the data folder is locked to one
 * process, so every writer of `auth_api_keys` runs on this process's single connection, and PGlite hands a
 * NOTIFY to this process's listeners when the writing statement completes: a revoke or rotate has cleared the
 * cache before its command returns, so the very next request is refused (docs/auth.md). On PostgreSQL another
 * instance would only hear the notification some time after COMMIT, so there is no cache there (createSqlAuth
 * uses the plain index: one indexed lookup per request).
 *
 * A lookup that was in flight when a change was notified is not stored (its generation ended), so it cannot put
 * the old state back. Unknown hashes are cached too (a key created later notifies as well). If LISTEN fails, or
 * once closed, every lookup goes to the database.
 */
export class EmbeddedKeyCache implements ApiKeyIndex {
  private readonly entries = new Map<string, ActiveApiKey | null>();
  private generation = 0;
  private enabled = false;
  private unlisten: (() => Promise<void>) | undefined;

  private constructor(
    private readonly index: ApiKeyIndex,
    private readonly maxEntries: number,
  ) {}

  static async over(db: SqlDatabase, index: ApiKeyIndex, maxEntries = 10_000): Promise<EmbeddedKeyCache> {
    const cache = new EmbeddedKeyCache(index, maxEntries);
    if (db.kind !== 'pglite') return cache; // never cache where other processes write (see above)
    try {
      cache.unlisten = await db.listen(API_KEYS_CHANGED, () => cache.invalidate());
      cache.enabled = true;
    } catch {
      cache.enabled = false;
    }
    return cache;
  }

  get caching(): boolean {
    return this.enabled;
  }

  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  cachedActiveByHash(keyHash: string): ActiveApiKey | undefined {
    return this.enabled ? (this.entries.get(keyHash) ?? undefined) : undefined;
  }

  async findActiveByHash(keyHash: string): Promise<ActiveApiKey | null> {
    if (!this.enabled) return this.index.findActiveByHash(keyHash);
    if (this.entries.has(keyHash)) return this.entries.get(keyHash)!;
    const generation = this.generation;
    const key = await this.index.findActiveByHash(keyHash);
    if (generation === this.generation && this.enabled) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(keyHash, key);
    }
    return key;
  }

  findWalletOfKey(keyId: string): Promise<string | null> {
    return this.index.findWalletOfKey(keyId);
  }

  /**
   * Empties the cache once the write settles, whatever its outcome. The NOTIFY is a statement of its own after the
   * write: a write that applied but failed to answer (or whose NOTIFY failed) would otherwise leave this cache serving
   * the old key — a suspended/revoked key admitted, an old tier kept — with no bound at all, since nothing else here
   * expires entries. Every writer of this database runs in this process, so clearing here covers them all.
   */
  async project(wallet: string, revision: number, keys: readonly WalletKey[]): Promise<void> {
    try {
      await this.index.project(wallet, revision, keys);
    } finally {
      this.invalidate();
    }
  }

  /** As project: emptied whether or not the suspend answered. */
  async suspend(keyId: string): Promise<void> {
    try {
      await this.index.suspend(keyId);
    } finally {
      this.invalidate();
    }
  }

  recordLastUsed(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    return this.index.recordLastUsed(lastUsed);
  }

  lastUsed(wallet: string): Promise<Map<string, Date>> {
    return this.index.lastUsed(wallet);
  }

  async close(): Promise<void> {
    this.enabled = false;
    this.invalidate();
    await this.unlisten?.();
  }
}
