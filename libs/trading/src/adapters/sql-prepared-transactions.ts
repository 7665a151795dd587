import { migrateSchema, type SqlDatabase, type SqlExecutor } from '@dob/sql';
import type { TradeKind } from '../domain/trade-kind';
import type { PreparedState, PreparedTransaction, PreparedTransactions, SubmitOutcome } from '../ports/prepared-transactions.port';

interface Row {
  hash: string;
  kind: TradeKind;
  network_id: number;
  wallet: string;
  key_id: string;
  xdr: string;
  expires_at: Date | string;
  context: Record<string, unknown>;
  state: PreparedState;
  outcome: SubmitOutcome | null;
  signed_xdr: string | null;
  created_at: Date | string;
}

const TABLE = 'trading_prepared_transactions';

/** Creates the table once (idempotent); every statement is plain PostgreSQL, so PGlite and PostgreSQL share it. */
export async function migratePreparedTransactions(db: SqlDatabase | SqlExecutor): Promise<void> {
  await migrateSchema(
    db,
    'dob.trading.migrate',
    `CREATE TABLE IF NOT EXISTS ${TABLE} (
    hash        text        PRIMARY KEY,
    kind        text        NOT NULL CHECK (kind IN ('buy', 'list', 'cancel', 'contribute', 'reclaim')),
    network_id  int         NOT NULL,
    wallet      text        NOT NULL,
    key_id      text        NOT NULL,
    xdr         text        NOT NULL,
    expires_at  timestamptz NOT NULL,
    context     jsonb       NOT NULL,
    state       text        NOT NULL DEFAULT 'prepared' CHECK (state IN ('prepared', 'submitting', 'succeeded', 'failed')),
    signed_xdr  text,
    outcome     jsonb,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ${TABLE}_wallet ON ${TABLE} (wallet, created_at DESC);`,
  );
}

/**
 * Durable memory of prepared transactions. The state machine's transitions are single conditional UPDATEs, so two
 * concurrent submits of one envelope cannot both claim it (the row lock serialises them; the loser matches 0 rows).
 */
export class SqlPreparedTransactions implements PreparedTransactions {
  constructor(private readonly db: SqlDatabase) {}

  static async open(db: SqlDatabase): Promise<SqlPreparedTransactions> {
    await migratePreparedTransactions(db);
    return new SqlPreparedTransactions(db);
  }

  async save(tx: Omit<PreparedTransaction, 'state' | 'outcome'>): Promise<void> {
    // The same hash twice means the very same transaction (same source, sequence, timebounds, call): keep the first.
    await this.db.query(
      `INSERT INTO ${TABLE} (hash, kind, network_id, wallet, key_id, xdr, expires_at, context, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9) ON CONFLICT (hash) DO NOTHING`,
      [tx.hash, tx.kind, tx.networkId, tx.wallet, tx.keyId, tx.xdr, tx.expiresAt.toISOString(), JSON.stringify(tx.context), tx.createdAt.toISOString()],
    );
  }

  async find(hash: string): Promise<PreparedTransaction | null> {
    const { rows } = await this.db.query<Row>(
      `SELECT hash, kind, network_id, wallet, key_id, xdr, expires_at, context, state, outcome, signed_xdr, created_at FROM ${TABLE} WHERE hash = $1`,
      [hash],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      hash: r.hash,
      kind: r.kind,
      networkId: Number(r.network_id),
      wallet: r.wallet,
      keyId: r.key_id,
      xdr: r.xdr,
      expiresAt: new Date(r.expires_at),
      context: r.context,
      state: r.state,
      outcome: r.outcome,
      signedXdr: r.signed_xdr,
      createdAt: new Date(r.created_at),
    };
  }

  async claim(hash: string, signedXdr: string, at: Date, staleBefore: Date): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE ${TABLE} SET state = 'submitting', signed_xdr = $2, updated_at = $3
        WHERE hash = $1 AND (state = 'prepared' OR (state = 'submitting' AND updated_at < $4))`,
      [hash, signedXdr, at.toISOString(), staleBefore.toISOString()],
    );
    return r.rowCount === 1;
  }

  async finish(hash: string, outcome: SubmitOutcome, at: Date): Promise<void> {
    await this.db.query(`UPDATE ${TABLE} SET state = $2, outcome = $3::jsonb, updated_at = $4 WHERE hash = $1 AND state = 'submitting'`, [
      hash,
      outcome.state,
      JSON.stringify(outcome),
      at.toISOString(),
    ]);
  }

  async release(hash: string, at: Date): Promise<void> {
    await this.db.query(`UPDATE ${TABLE} SET state = 'prepared', signed_xdr = NULL, updated_at = $2 WHERE hash = $1 AND state = 'submitting'`, [
      hash,
      at.toISOString(),
    ]);
  }
}
