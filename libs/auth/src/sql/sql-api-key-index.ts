import type { SqlDatabase } from '@dob/sql';
import type { ActiveApiKey, ApiKeyIndex } from '../keys/api-key-index.port';
import type { Scope, WalletKey } from '../wallet/wallet-keys.aggregate';
import { API_KEYS_CHANGED } from './embedded-key-cache';

/**
 * Prefix of every statement that changes a key's admission: bumps the key epoch in the same statement (a
 * data-modifying WITH runs exactly once whether or not it is referenced), so caches validated by the epoch
 * (SqlKeyChangeSignal) can never miss a committed change.
 */
const BUMP_EPOCH = 'WITH key_epoch AS (UPDATE auth_key_epoch SET epoch = epoch + 1 WHERE id = 1)';

/** The guard's index over SQL: one primary-key/unique-index lookup per authenticated request. */
export class SqlApiKeyIndex implements ApiKeyIndex {
  constructor(private readonly db: SqlDatabase) {}

  async findActiveByHash(keyHash: string): Promise<ActiveApiKey | null> {
    const { rows } = await this.db.query<{ key_id: string; wallet: string; scopes: Scope[]; rate_limit_rpm: number }>(
      `SELECT key_id, wallet, scopes, rate_limit_rpm FROM auth_api_keys
        WHERE key_hash = $1 AND revoked_at IS NULL AND NOT suspended`,
      [keyHash],
    );
    const r = rows[0];
    return r ? { keyId: r.key_id, wallet: r.wallet, scopes: r.scopes, rateLimitRpm: Number(r.rate_limit_rpm) } : null;
  }

  async findWalletOfKey(keyId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ wallet: string }>('SELECT wallet FROM auth_api_keys WHERE key_id = $1', [keyId]);
    return rows[0]?.wallet ?? null;
  }

  async project(wallet: string, revision: number, keys: readonly WalletKey[]): Promise<void> {
    if (keys.length === 0) return;
    const json = JSON.stringify(
      keys.map((k) => ({ key_id: k.keyId, key_hash: k.keyHash, scopes: k.scopes, rate_limit_rpm: k.rateLimitRpm, revoked_at: k.revokedAt })),
    );
    // One statement for the whole wallet; rows already projected from a newer revision win (WHERE on the update);
    // a suspended row is restored by any projection at least as new as it. The key epoch moves in the same statement.
    await this.db.query(
      `${BUMP_EPOCH}
       INSERT INTO auth_api_keys (key_id, wallet, key_hash, scopes, rate_limit_rpm, revoked_at, suspended, revision)
       SELECT k.key_id, $1, k.key_hash, k.scopes, k.rate_limit_rpm, k.revoked_at, false, $2
         FROM jsonb_to_recordset($3::jsonb) AS k(key_id text, key_hash text, scopes jsonb, rate_limit_rpm integer, revoked_at timestamptz)
       ON CONFLICT (key_id) DO UPDATE SET
         key_hash = excluded.key_hash, scopes = excluded.scopes, rate_limit_rpm = excluded.rate_limit_rpm,
         revoked_at = excluded.revoked_at, suspended = false, revision = excluded.revision
       WHERE auth_api_keys.revision < excluded.revision
          OR (auth_api_keys.suspended AND auth_api_keys.revision <= excluded.revision)`,
      [wallet, revision, json],
    );
    await this.notifyChanged();
  }

  async suspend(keyId: string): Promise<void> {
    await this.db.query(`${BUMP_EPOCH} UPDATE auth_api_keys SET suspended = true WHERE key_id = $1`, [keyId]);
    await this.notifyChanged();
  }

  /** After the change is committed: lookup caches (EmbeddedKeyCache, SharedKeyCache) forget what they hold now. */
  private async notifyChanged(): Promise<void> {
    await this.db.exec(`NOTIFY ${API_KEYS_CHANGED}`);
  }

  async recordLastUsed(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    if (lastUsed.size === 0) return;
    const json = JSON.stringify([...lastUsed].map(([key_id, at]) => ({ key_id, at: at.toISOString() })));
    await this.db.query(
      `UPDATE auth_api_keys k SET last_used_at = GREATEST(k.last_used_at, u.at)
         FROM jsonb_to_recordset($1::jsonb) AS u(key_id text, at timestamptz)
        WHERE k.key_id = u.key_id`,
      [json],
    );
  }

  async lastUsed(wallet: string): Promise<Map<string, Date>> {
    const { rows } = await this.db.query<{ key_id: string; last_used_at: Date | string }>(
      'SELECT key_id, last_used_at FROM auth_api_keys WHERE wallet = $1 AND last_used_at IS NOT NULL',
      [wallet],
    );
    return new Map(rows.map((r) => [r.key_id, new Date(r.last_used_at)]));
  }
}
