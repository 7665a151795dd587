import type { ActiveApiKey, ApiKeyIndex } from './api-key-index.port';
import { API_KEY_LENGTH, hashApiKey, isWellFormedApiKey } from './api-key';

/**
 * Resolves an `X-API-Key` value to its active key. Malformed keys (bad prefix, length or checksum) are refused
 * without touching storage; otherwise a lookup by SHA-256 in the index — no cache of its own; the index caches
 * only where a revoke or rotation made through any instance is still seen by the very next request here
 * (EmbeddedKeyCache on embedded PGlite; SharedKeyCache, under a lease on the key epoch, on PostgreSQL).
 * `last_used_at` is collected in memory and flushed in batches (every `flushMs`), not written per request.
 */
export class ApiKeyAuthenticator {
  private pending = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly index: ApiKeyIndex,
    private readonly options: { flushMs?: number; clock?: () => number } = {},
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), options.flushMs ?? 5000);
    this.timer.unref();
  }

  async authenticate(rawKey: string): Promise<ActiveApiKey | null> {
    if (rawKey.length !== API_KEY_LENGTH) return null; // nothing longer is hashed
    const keyHash = hashApiKey(rawKey);
    const cached = this.fromCache(keyHash);
    if (cached) return cached;
    if (!isWellFormedApiKey(rawKey)) return null;
    const key = await this.index.findActiveByHash(keyHash);
    if (key) this.touched(key);
    return key;
  }

  /**
   * What authenticate would answer, when it can be told without I/O: null for a value of the wrong length, the key
   * when the key cache holds its hash; undefined otherwise (then authenticate decides). For the request gate's
   * synchronous path.
   */
  authenticateNow(rawKey: string): ActiveApiKey | null | undefined {
    if (rawKey.length !== API_KEY_LENGTH) return null;
    return this.fromCache(hashApiKey(rawKey));
  }

  /**
   * A hash the key cache holds is an issued key's (SHA-256), so its shape and checksum need no second look; the
   * checksum stands between every other value and a lookup in storage.
   */
  private fromCache(keyHash: string): ActiveApiKey | undefined {
    const cached = this.index.cachedActiveByHash?.(keyHash);
    if (cached) this.touched(cached);
    return cached;
  }

  private touched(key: ActiveApiKey): void {
    this.pending.set(key.keyId, (this.options.clock ?? Date.now)());
  }

  /** Writes collected last-used times (also on shutdown). Failed batches are merged back for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.index.recordLastUsed(new Map([...batch].map(([k, at]) => [k, new Date(at)])));
      } catch (e) {
        for (const [k, v] of batch) if (!this.pending.has(k)) this.pending.set(k, v);
        throw e;
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => undefined);
  }
}
