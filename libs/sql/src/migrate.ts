import type { SqlDatabase, SqlExecutor } from './sql.port';

/**
 * Runs idempotent DDL (`CREATE … IF NOT EXISTS`) under a transaction-scoped advisory lock named `name`. PostgreSQL's
 * IF NOT EXISTS is not safe against a concurrent creator (two processes can both pass the check and one fails on
 * pg_type's unique index), so processes starting together on one fresh database — API replicas, a notifier —
 * take turns. On a plain executor (already inside the caller's transaction) the lock joins that transaction.
 */
export async function migrateSchema(db: SqlDatabase | SqlExecutor, name: string, ddl: string): Promise<void> {
  const run = async (tx: SqlExecutor) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [name]);
    await tx.exec(ddl);
  };
  if ('transaction' in db) await db.transaction(run);
  else await run(db);
}
