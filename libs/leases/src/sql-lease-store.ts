import { migrateSchema, type SqlDatabase, type SqlExecutor } from '@dob/sql';
import { LeaseLostError, type LeaseFence, type LeaseRecord, type LeaseStore } from './lease.port';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS leases (
  name        text        PRIMARY KEY,
  token       int8        NOT NULL,
  owner_id    text        NOT NULL,
  owner_app   text        NOT NULL,
  owner_host  text        NOT NULL,
  owner_pid   int         NOT NULL,
  acquired_at timestamptz NOT NULL,
  renewed_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  progress    jsonb
);`;

interface LeaseRow {
  name: string;
  token: string;
  owner_id: string;
  owner_app: string;
  owner_host: string;
  owner_pid: number;
  acquired_at: Date;
  renewed_at: Date;
  expires_at: Date;
  lapsed: boolean;
  progress: Record<string, unknown> | null;
}

/**
 * Leases as rows of `leases` in the database the leased work writes (PostgreSQL). Every time comparison uses the
 * server's clock (`now()`), so hosts with skewed clocks agree on who holds what. Taking a lease is one
 * `INSERT … ON CONFLICT DO UPDATE … WHERE lapsed or mine`: PostgreSQL locks the row and re-checks the condition, so
 * of two standbys racing for a lapsed lease exactly one gets it.
 */
export function createSqlLeaseStore(db: SqlDatabase): LeaseStore {
  return {
    async init() {
      await migrateSchema(db, 'dob.leases.migrate', SCHEMA);
    },

    async tryAcquire(name, owner, durationMs) {
      const { rows } = await db.query<{ token: string }>(
        `INSERT INTO leases (name, token, owner_id, owner_app, owner_host, owner_pid, acquired_at, renewed_at, expires_at)
         VALUES ($1, 1, $2, $3, $4, $5, now(), now(), now() + $6 * interval '1 millisecond')
         ON CONFLICT (name) DO UPDATE
            SET token = leases.token + 1, owner_id = EXCLUDED.owner_id, owner_app = EXCLUDED.owner_app,
                owner_host = EXCLUDED.owner_host, owner_pid = EXCLUDED.owner_pid, acquired_at = now(),
                renewed_at = now(), expires_at = EXCLUDED.expires_at, progress = NULL
          WHERE leases.expires_at <= now() OR leases.owner_id = EXCLUDED.owner_id
         RETURNING token`,
        [name, owner.id, owner.app, owner.host, owner.pid, durationMs],
      );
      return rows[0] ? { name, token: Number(rows[0].token), ownerId: owner.id } : null;
    },

    async renew(lease, durationMs, progress = null) {
      const { rowCount } = await db.query(
        `UPDATE leases SET renewed_at = now(), expires_at = now() + $4 * interval '1 millisecond', progress = $5
          WHERE name = $1 AND token = $2 AND owner_id = $3`,
        [lease.name, lease.token, lease.ownerId, durationMs, progress === null ? null : JSON.stringify(progress)],
      );
      return rowCount > 0;
    },

    async release(lease) {
      await db.query(`UPDATE leases SET expires_at = now() WHERE name = $1 AND token = $2 AND owner_id = $3`, [lease.name, lease.token, lease.ownerId]);
    },

    async list() {
      const { rows } = await db.query<LeaseRow>(`SELECT *, expires_at <= now() AS lapsed FROM leases ORDER BY name`);
      return rows.map(toRecord);
    },
  };
}

/**
 * A fenced transaction must not outlive its lease: if its process is paused (or cut off) mid-transaction, its row
 * locks would hold back the standby that takes the work over. PostgreSQL ends a session left idle in a
 * transaction this long (rolled back: nothing of it lands). Run first in the transaction.
 */
export async function boundFencedTransaction(tx: SqlExecutor, fence: LeaseFence): Promise<void> {
  if (fence.durationMs) await tx.query(`SELECT set_config('idle_in_transaction_session_timeout', $1, true)`, [String(fence.durationMs)]);
}

/**
 * The fencing check, run inside the transaction that commits leased work, last before its final write: the lease
 * must still carry this token and not have lapsed. `FOR SHARE` holds the row until COMMIT, so a standby's takeover
 * (an UPDATE of that row) waits for this commit to finish, and every commit after the takeover sees the new token
 * and is refused: the old holder's batch either landed before the takeover or not at all.
 */
export async function assertLeaseHeld(tx: SqlExecutor, fence: LeaseFence): Promise<void> {
  const { rows } = await tx.query(`SELECT 1 FROM leases WHERE name = $1 AND token = $2 AND expires_at > now() FOR SHARE`, [fence.name, fence.token]);
  if (rows.length === 0) throw new LeaseLostError(fence);
}

function toRecord(r: LeaseRow): LeaseRecord {
  return {
    name: r.name,
    token: Number(r.token),
    owner: { id: r.owner_id, app: r.owner_app, host: r.owner_host, pid: r.owner_pid },
    acquiredAt: new Date(r.acquired_at),
    renewedAt: new Date(r.renewed_at),
    expiresAt: new Date(r.expires_at),
    lapsed: r.lapsed,
    progress: r.progress,
  };
}
