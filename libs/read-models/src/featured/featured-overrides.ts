import { READ_MODELS_CHANGED_CHANNEL } from '@dob/projections';
import { migrateSchema, type SqlDatabase, type SqlExecutor } from '@dob/sql';

/**
 * Operator-chosen featured pools, shown before the rule-based picks. Service-owned configuration (not derived from
 * chain events), so it lives in its own table that rebuilds of the read models never touch.
 */
export const FEATURED_OVERRIDES_TABLE = 'featured_pool_overrides';

export interface FeaturedOverride {
  readonly networkId: number;
  readonly address: string;
  readonly reason: string;
  /** Lower first. */
  readonly position: number;
}

export async function migrateFeaturedOverrides(db: SqlDatabase | SqlExecutor): Promise<void> {
  await migrateSchema(
    db,
    'dob.featured.migrate',
    `CREATE TABLE IF NOT EXISTS ${FEATURED_OVERRIDES_TABLE} (
    network_id int  NOT NULL,
    address    text NOT NULL,
    reason     text NOT NULL,
    position   int  NOT NULL DEFAULT 0,
    PRIMARY KEY (network_id, address)
  )`,
  );
}

export async function setFeaturedOverride(db: SqlExecutor, o: FeaturedOverride): Promise<void> {
  await db.query(
    `INSERT INTO ${FEATURED_OVERRIDES_TABLE} (network_id, address, reason, position) VALUES ($1, $2, $3, $4)
     ON CONFLICT (network_id, address) DO UPDATE SET reason = EXCLUDED.reason, position = EXCLUDED.position`,
    [o.networkId, o.address, o.reason, o.position],
  );
  await notifyChanged(db);
}

/** Cached query results include the featured list: tell readers the overrides changed (a statement, not a read). */
async function notifyChanged(db: SqlExecutor): Promise<void> {
  await db.exec(`NOTIFY ${READ_MODELS_CHANGED_CHANNEL}, '${FEATURED_OVERRIDES_TABLE}'`);
}

export async function clearFeaturedOverride(db: SqlExecutor, networkId: number, address: string): Promise<void> {
  await db.query(`DELETE FROM ${FEATURED_OVERRIDES_TABLE} WHERE network_id = $1 AND address = $2`, [networkId, address]);
  await notifyChanged(db);
}
