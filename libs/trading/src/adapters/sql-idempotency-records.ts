import { migrateSchema, type SqlDatabase } from '@dob/sql';
import type { IdempotencyRecord, IdempotencyRecords, StoredAnswer } from '../ports/idempotency-records.port';

const TABLE = 'trading_idempotency_keys';

/** One row per (API key, Idempotency-Key); the primary key makes concurrent first uses of a key claim it once. */
export class SqlIdempotencyRecords implements IdempotencyRecords {
  constructor(private readonly db: SqlDatabase) {}

  static async open(db: SqlDatabase): Promise<SqlIdempotencyRecords> {
    await migrateSchema(
      db,
      'dob.trading.idempotency.migrate',
      `CREATE TABLE IF NOT EXISTS ${TABLE} (
        key_id      text        NOT NULL,
        idem_key    text        NOT NULL,
        fingerprint text        NOT NULL,
        answer      jsonb,
        created_at  timestamptz NOT NULL,
        updated_at  timestamptz NOT NULL,
        PRIMARY KEY (key_id, idem_key)
      );`,
    );
    return new SqlIdempotencyRecords(db);
  }

  async begin(keyId: string, key: string, fingerprint: string, at: Date): Promise<'claimed' | IdempotencyRecord> {
    const r = await this.db.query(
      `INSERT INTO ${TABLE} (key_id, idem_key, fingerprint, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) ON CONFLICT DO NOTHING`,
      [keyId, key, fingerprint, at.toISOString()],
    );
    if (r.rowCount === 1) return 'claimed';
    return (await this.find(keyId, key)) ?? this.begin(keyId, key, fingerprint, at); // abandoned in between: claim again
  }

  async find(keyId: string, key: string): Promise<IdempotencyRecord | null> {
    const { rows } = await this.db.query<{ fingerprint: string; answer: StoredAnswer | null }>(
      `SELECT fingerprint, answer FROM ${TABLE} WHERE key_id = $1 AND idem_key = $2`,
      [keyId, key],
    );
    return rows[0] ?? null;
  }

  async complete(keyId: string, key: string, answer: StoredAnswer, at: Date): Promise<void> {
    await this.db.query(`UPDATE ${TABLE} SET answer = $3::jsonb, updated_at = $4 WHERE key_id = $1 AND idem_key = $2 AND answer IS NULL`, [
      keyId,
      key,
      JSON.stringify(answer),
      at.toISOString(),
    ]);
  }

  async abandon(keyId: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM ${TABLE} WHERE key_id = $1 AND idem_key = $2 AND answer IS NULL`, [keyId, key]);
  }
}
