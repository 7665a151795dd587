import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType } from './apply-by-type';

/**
 * One row per pool (network, splitter address): registry metadata (name, ticker, access/distribution type, APR —
 * no contract holds these, dob-contracts §7), what `init` says (version, creator, participation token), lock and
 * admin state, V2 distribution config/schedule, and the running total distributed. Member counts and share totals
 * come from the members model at query time.
 */
export const POOLS = 'pools';

const upsertKey = `INSERT INTO %T (network_id, address) VALUES ($1, $2) ON CONFLICT (network_id, address) DO NOTHING`;

async function ensure(tx: SqlExecutor, table: string, networkId: number, address: string): Promise<void> {
  await tx.query(upsertKey.replace('%T', table), [networkId, address]);
}

export const poolsProjection: ProjectionDefinition<SqlExecutor> = {
  name: POOLS,
  // v2: indexes for the list's sorts (each order of pool-queries ORDER, over listed pools only).
  version: 2,
  eventTypes: [
    'PoolRegistered',
    'PoolMetadataUpdated',
    'PoolInitialized',
    'PoolAdminChanged',
    'PoolLocked',
    'PoolDistributionConfigured',
    'PoolScheduleSet',
    'PoolScheduleDisabled',
    'RoundCreated',
    'DistributionCompleted',
  ],
  tables: ['pools'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.pools} (
      network_id           int         NOT NULL,
      address              text        NOT NULL,
      registered           boolean     NOT NULL DEFAULT false,
      name                 text,
      ticker               text,
      access_type          text,
      distribution_type    text,
      estimated_apr        numeric,
      max_participants     int,
      token_to_distribute  text,
      initialized          boolean     NOT NULL DEFAULT false,
      pool_version         text,
      pool_type            text,
      creator_address      text,
      admin                text,
      mutable              boolean,
      locked               boolean     NOT NULL DEFAULT false,
      participation_token  text,
      created_at           timestamptz,
      created_event_id     text,
      min_interval_seconds int8,
      claim_delay_seconds  int8,
      round_expiry_seconds int8,
      schedule_first       int8,
      schedule_interval    int8,
      schedule_total       int,
      schedule_enabled     boolean     NOT NULL DEFAULT false,
      total_distributed    numeric     NOT NULL DEFAULT 0,
      distribution_count   int         NOT NULL DEFAULT 0,
      last_distribution_at timestamptz,
      distribution_token   text,
      PRIMARY KEY (network_id, address)
    );
    CREATE INDEX ON ${t.pools} (address);
    -- One index per list sort, in the exact ORDER BY of pool-queries (NULLS LAST included: a DESC index is NULLS
    -- FIRST by default and could not serve it), partial on the list's own predicate, so a page reads LIMIT rows.
    CREATE INDEX ON ${t.pools} (created_at DESC NULLS LAST, network_id, address) WHERE initialized OR registered;
    CREATE INDEX ON ${t.pools} (created_at ASC NULLS LAST, network_id, address) WHERE initialized OR registered;
    CREATE INDEX ON ${t.pools} (estimated_apr DESC NULLS LAST, network_id, address) WHERE initialized OR registered;
    CREATE INDEX ON ${t.pools} (estimated_apr ASC NULLS LAST, network_id, address) WHERE initialized OR registered;`);
  },
  apply: applyByType({
    async PoolRegistered(tx, t, e) {
      const d = e.data;
      await ensure(tx, t.pools, d.network_id, d.pool);
      await tx.query(
        `UPDATE ${t.pools} SET registered = true, name = $3, ticker = $4, access_type = $5, distribution_type = $6,
                estimated_apr = $7::numeric, max_participants = $8, token_to_distribute = $9,
                created_at = COALESCE(created_at, $10::timestamptz), created_event_id = COALESCE(created_event_id, $11)
          WHERE network_id = $1 AND address = $2`,
        [d.network_id, d.pool, d.name, d.ticker, d.access_type, d.distribution_type, d.estimated_apr, d.max_participants, d.token_to_distribute, d.registered_at, e.id],
      );
    },
    async PoolMetadataUpdated(tx, t, e) {
      const d = e.data;
      await ensure(tx, t.pools, d.network_id, d.pool);
      const columns = ['name', 'ticker', 'access_type', 'distribution_type', 'estimated_apr', 'max_participants', 'token_to_distribute'];
      const set = columns.filter((c) => c in d.changes);
      if (!set.length) return;
      await tx.query(
        `UPDATE ${t.pools} SET ${set.map((c, i) => `${c} = $${i + 3}${c === 'estimated_apr' ? '::numeric' : ''}`).join(', ')}
          WHERE network_id = $1 AND address = $2`,
        [d.network_id, d.pool, ...set.map((c) => d.changes[c])],
      );
    },
    async PoolInitialized(tx, t, e) {
      const d = e.data;
      const c = d.chain;
      await ensure(tx, t.pools, c.network_id, c.contract_id);
      // The first sighting of the pool on chain is its creation time (no on-chain "pool created" event, §7).
      await tx.query(
        `UPDATE ${t.pools} SET initialized = true, pool_version = $3, pool_type = $4, creator_address = $5, admin = $5,
                mutable = $6, participation_token = $7, created_at = $8::timestamptz, created_event_id = $9
          WHERE network_id = $1 AND address = $2`,
        [c.network_id, c.contract_id, d.pool_version, d.pool_type, d.admin, d.mutable, d.participation_token, c.closed_at, c.event_id],
      );
    },
    async PoolAdminChanged(tx, t, e) {
      const c = e.data.chain;
      await ensure(tx, t.pools, c.network_id, c.contract_id);
      await tx.query(`UPDATE ${t.pools} SET admin = $3 WHERE network_id = $1 AND address = $2`, [c.network_id, c.contract_id, e.data.new_admin]);
    },
    async PoolLocked(tx, t, e) {
      const c = e.data.chain;
      await ensure(tx, t.pools, c.network_id, c.contract_id);
      await tx.query(`UPDATE ${t.pools} SET locked = true WHERE network_id = $1 AND address = $2`, [c.network_id, c.contract_id]);
    },
    async PoolDistributionConfigured(tx, t, e) {
      const d = e.data;
      const c = d.chain;
      await ensure(tx, t.pools, c.network_id, c.contract_id);
      await tx.query(
        `UPDATE ${t.pools} SET min_interval_seconds = $3, claim_delay_seconds = $4, round_expiry_seconds = $5
          WHERE network_id = $1 AND address = $2`,
        [c.network_id, c.contract_id, d.min_interval_seconds, d.claim_delay_seconds, d.round_expiry_seconds],
      );
    },
    async PoolScheduleSet(tx, t, e) {
      const d = e.data;
      const c = d.chain;
      await ensure(tx, t.pools, c.network_id, c.contract_id);
      await tx.query(
        `UPDATE ${t.pools} SET schedule_enabled = true, schedule_first = $3, schedule_interval = $4, schedule_total = $5
          WHERE network_id = $1 AND address = $2`,
        [c.network_id, c.contract_id, d.first_distribution_time, d.interval_seconds, d.total_distributions],
      );
    },
    async PoolScheduleDisabled(tx, t, e) {
      const c = e.data.chain;
      await ensure(tx, t.pools, c.network_id, c.contract_id);
      await tx.query(`UPDATE ${t.pools} SET schedule_enabled = false WHERE network_id = $1 AND address = $2`, [c.network_id, c.contract_id]);
    },
    async RoundCreated(tx, t, e) {
      await addDistribution(tx, t.pools, e.data.chain, e.data.total_amount, e.data.token);
    },
    async DistributionCompleted(tx, t, e) {
      await addDistribution(tx, t.pools, e.data.chain, e.data.total_distributed, e.data.token);
    },
  }),
};

async function addDistribution(
  tx: SqlExecutor,
  table: string,
  c: { network_id: number; contract_id: string; closed_at: string },
  amount: string,
  token: string,
): Promise<void> {
  await ensure(tx, table, c.network_id, c.contract_id);
  await tx.query(
    `UPDATE ${table} SET total_distributed = total_distributed + $3::numeric, distribution_count = distribution_count + 1,
            last_distribution_at = $4::timestamptz, distribution_token = $5
      WHERE network_id = $1 AND address = $2`,
    [c.network_id, c.contract_id, amount, c.closed_at, token],
  );
}
