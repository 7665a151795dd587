import type { ActiveApiKey, ApiKeyIndex } from './api-key-index.port';
import { hashApiKey, isWellFormedApiKey } from './api-key';

/**
 * Resolves an `X-API-Key` value to its active key. Malformed keys (bad prefix, length or checksum) are refused
 * without touching storage; otherwise one indexed lookup by SHA-256 — no cache of its own, so a revoke or rotation
 * made through any instance is seen by the very next request here (the index may cache only where that still holds:
 * EmbeddedKeyCache on embedded PGlite).
 * `last_used_at` is collected in memory and flushed in batches (every `flushMs`), not written per request.
 */
export class ApiKeyAuthenticator {
  private pending = new Map<string, Date>();
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
    if (!isWellFormedApiKey(rawKey)) return null;
    const key = await this.index.findActiveByHash(hashApiKey(rawKey));
    if (key) this.pending.set(key.keyId, new Date((this.options.clock ?? Date.now)()));
    return key;
  }

  /** Writes collected last-used times (also on shutdown). Failed batches are merged back for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.index.recordLastUsed(batch);
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
