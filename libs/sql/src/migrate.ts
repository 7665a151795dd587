import { createHash } from 'node:crypto';
import type { SqlDatabase, SqlExecutor } from './sql.port';

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  name       text        PRIMARY KEY,
  checksum   text        NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/**
 * Runs idempotent DDL (`CREATE … IF NOT EXISTS`) once per text: `schema_migrations` records each `name` with a
 * checksum of its DDL, and a process that finds its text recorded runs nothing. That matters for more than speed:
 * `CREATE INDEX IF NOT EXISTS` locks its table before it looks for the index, so re-running it while another process
 * writes those tables (an API replica starting beside a busy notifier) can deadlock with that writer (seen in the
 * scale-out test: 40P01 between the webhooks DDL and a delivery insert). PostgreSQL's IF NOT EXISTS is also not safe
 * against a concurrent creator (two processes can both pass the check and one fails on pg_type's unique index), so
 * every migration takes one transaction-scoped advisory lock: processes starting together on one fresh database take
 * turns, and the second finds the first's record. On a plain executor (already inside the caller's transaction) the
 * lock joins that transaction. Changing a DDL text re-runs it whole, so texts stay idempotent.
 */
export async function migrateSchema(db: SqlDatabase | SqlExecutor, name: string, ddl: string): Promise<void> {
  const checksum = createHash('sha256').update(ddl).digest('hex');
  const run = async (tx: SqlExecutor) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dob.schema_migrations'))`);
    await tx.exec(LEDGER);
    const { rows } = await tx.query<{ checksum: string }>(`SELECT checksum FROM schema_migrations WHERE name = $1`, [name]);
    if (rows[0]?.checksum === checksum) return;
    await tx.exec(ddl);
    await tx.query(
      `INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
      [name, checksum],
    );
  };
  if ('transaction' in db) await db.transaction(run);
  else await run(db);
}
