import type { Scope, WalletKey } from '../wallet/wallet-keys.aggregate';

/** What the guard needs to admit a request: the principal behind an active key. */
export interface ActiveApiKey {
  readonly keyId: string;
  readonly wallet: string;
  readonly scopes: readonly Scope[];
  readonly rateLimitRpm: number;
}

/**
 * The guard's fast lookup: key hash → active key, projected synchronously from the wallet aggregate by the command
 * handler before it answers (so every API instance refuses a revoked or rotated-away key on its next request),
 * plus `last_used_at`, which is written in batches rather than per request.
 */
export interface ApiKeyIndex {
  findActiveByHash(keyHash: string): Promise<ActiveApiKey | null>;
  /**
   * The active key for this hash if a cache holds it and may answer now (what findActiveByHash would return without
   * a round trip), else undefined. Optional: an index without a cache has none.
   */
  cachedActiveByHash?(keyHash: string): ActiveApiKey | undefined;
  /** Which wallet holds a key (ops commands address keys by key_id alone). */
  findWalletOfKey(keyId: string): Promise<string | null>;
  /**
   * Writes the wallet's keys as of stream revision `revision`. Rows already written from a newer revision are
   * left alone, so concurrent handlers converge on the latest state whatever order their writes land in.
   */
  project(wallet: string, revision: number, keys: readonly WalletKey[]): Promise<void>;
  /** Fail-safe before a revoke/rotate is appended: the key stops matching now; the projection after sets the truth. */
  suspend(keyId: string): Promise<void>;
  recordLastUsed(lastUsed: ReadonlyMap<string, Date>): Promise<void>;
  lastUsed(wallet: string): Promise<Map<string, Date>>;
}
