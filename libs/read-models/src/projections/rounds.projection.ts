import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType, type Chain, type EventHandler } from './apply-by-type';
import { SHARE_EVENT_TYPES, poolVersionsDdl, shareDeltas, shareTableReplacement } from './share-ledger';

/**
 * Distribution rounds per pool with their totals and claims (brief: round status).
 * - V2: `dist_new` (RoundCreated) opens round `round_id`; `claimed` adds to it; `reclaim` records the remainder.
 *   total_shares = the pool's share supply when the round was created (the contract's total_supply_snapshot).
 * - V1: `distrib` (DistributionAllocated) credits holders, then `dist_all` (DistributionCompleted) closes the
 *   round; V1 rounds get ids 0, 1, … per pool in event order, are claimable at once and never expire. The push
 *   model credits every holder, so the credited allocations are the round's claims.
 * Status (pending/completed/expired) is NOT stored: it depends on the clock and is computed at query time.
 */
export const ROUNDS = 'distribution_rounds';

const shares: EventHandler = async (tx, t, e) => {
  for (const d of await shareDeltas(tx, t.versions, e)) {
    await tx.query(
      `INSERT INTO ${t.totals} (network_id, pool, total_shares) VALUES ($1, $2, $3::numeric)
       ON CONFLICT (network_id, pool) DO UPDATE SET total_shares = ${t.totals}.total_shares + EXCLUDED.total_shares`,
      [d.networkId, d.pool, d.delta.toString()],
    );
  }
  const table = await shareTableReplacement(tx, t.versions, e);
  if (table) {
    const total = [...table.holders.values()].reduce((a, b) => a + b, 0n);
    await tx.query(
      `INSERT INTO ${t.totals} (network_id, pool, total_shares) VALUES ($1, $2, $3::numeric)
       ON CONFLICT (network_id, pool) DO UPDATE SET total_shares = EXCLUDED.total_shares`,
      [table.networkId, table.pool, total.toString()],
    );
  }
};

/** V1 shares are basis points: init and update_shares require Σ = 10,000 (dob-contracts §2, InvalidShareTotal). */
const V1_TOTAL_SHARES = '10000';

async function totalShares(tx: SqlExecutor, table: string, c: Chain): Promise<string> {
  const { rows } = await tx.query<{ total_shares: string }>(
    `SELECT total_shares::text FROM ${table} WHERE network_id = $1 AND pool = $2`,
    [c.network_id, c.contract_id],
  );
  return rows[0]?.total_shares ?? '0';
}

export const roundsProjection: ProjectionDefinition<SqlExecutor> = {
  name: ROUNDS,
  // v2: share totals include V1 initial cap tables and update_shares replacements (see share-ledger).
  version: 2,
  eventTypes: [
    ...SHARE_EVENT_TYPES,
    'RoundCreated',
    'RoundClaimed',
    'RoundReclaimed',
    'DistributionAllocated',
    'DistributionCompleted',
    'AllocationWithdrawn',
  ],
  tables: ['rounds', 'claims', 'totals', 'versions', 'v1_pending', 'withdrawals'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.rounds} (
      network_id     int         NOT NULL,
      pool           text        NOT NULL,
      round_id       int8        NOT NULL,
      pool_version   text        NOT NULL,
      token          text        NOT NULL,
      total_amount   numeric     NOT NULL,
      total_shares   numeric     NOT NULL,
      total_claimed  numeric     NOT NULL DEFAULT 0,
      claim_count    int         NOT NULL DEFAULT 0,
      reclaimed      numeric,
      created_at     timestamptz NOT NULL,
      claimable_from timestamptz NOT NULL,
      expires_at     timestamptz,
      tx_hash        text        NOT NULL,
      PRIMARY KEY (network_id, pool, round_id)
    );
    CREATE INDEX ON ${t.rounds} (claimable_from);
    CREATE TABLE ${t.claims} (
      network_id int         NOT NULL,
      pool       text        NOT NULL,
      round_id   int8        NOT NULL,
      holder     text        NOT NULL,
      token      text        NOT NULL,
      amount     numeric     NOT NULL,
      claimed_at timestamptz NOT NULL,
      PRIMARY KEY (network_id, pool, round_id, holder)
    );
    CREATE INDEX ON ${t.claims} (holder, network_id, pool);
    CREATE TABLE ${t.totals} (
      network_id   int     NOT NULL,
      pool         text    NOT NULL,
      total_shares numeric NOT NULL DEFAULT 0,
      v1_rounds    int     NOT NULL DEFAULT 0,
      PRIMARY KEY (network_id, pool)
    );
    ${poolVersionsDdl(t.versions)};
    CREATE TABLE ${t.v1_pending} (
      network_id int     NOT NULL,
      pool       text    NOT NULL,
      holder     text    NOT NULL,
      token      text    NOT NULL,
      amount     numeric NOT NULL,
      PRIMARY KEY (network_id, pool, holder, token)
    );
    CREATE TABLE ${t.withdrawals} (
      network_id int     NOT NULL,
      pool       text    NOT NULL,
      holder     text    NOT NULL,
      token      text    NOT NULL,
      amount     numeric NOT NULL,
      PRIMARY KEY (network_id, pool, holder, token)
    );`);
  },
  apply: applyByType({
    ...Object.fromEntries(SHARE_EVENT_TYPES.map((type) => [type, shares])),
    async RoundCreated(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `INSERT INTO ${t.rounds} (network_id, pool, round_id, pool_version, token, total_amount, total_shares, created_at,
                                  claimable_from, expires_at, tx_hash)
         VALUES ($1, $2, $3, '2', $4, $5::numeric, $6::numeric, $7, $8, $9, $10)
         ON CONFLICT (network_id, pool, round_id) DO NOTHING`,
        [c.network_id, c.contract_id, d.round_id, d.token, d.total_amount, await totalShares(tx, t.totals, c), c.closed_at, d.claimable_from, d.expires_at, c.tx_hash],
      );
    },
    async RoundClaimed(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `INSERT INTO ${t.claims} (network_id, pool, round_id, holder, token, amount, claimed_at)
         VALUES ($1, $2, $3, $4, $5, $6::numeric, $7) ON CONFLICT DO NOTHING`,
        [c.network_id, c.contract_id, d.round_id, d.shareholder, d.token, d.amount, c.closed_at],
      );
      await tx.query(
        `UPDATE ${t.rounds} SET total_claimed = total_claimed + $4::numeric, claim_count = claim_count + 1
          WHERE network_id = $1 AND pool = $2 AND round_id = $3`,
        [c.network_id, c.contract_id, d.round_id, d.amount],
      );
    },
    async RoundReclaimed(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `UPDATE ${t.rounds} SET reclaimed = COALESCE(reclaimed, 0) + $4::numeric
          WHERE network_id = $1 AND pool = $2 AND round_id = $3`,
        [c.network_id, c.contract_id, d.round_id, d.unclaimed],
      );
    },
    async DistributionAllocated(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `INSERT INTO ${t.v1_pending} (network_id, pool, holder, token, amount) VALUES ($1, $2, $3, $4, $5::numeric)
         ON CONFLICT (network_id, pool, holder, token) DO UPDATE SET amount = ${t.v1_pending}.amount + EXCLUDED.amount`,
        [c.network_id, c.contract_id, d.shareholder, d.token, d.amount],
      );
    },
    async DistributionCompleted(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const { rows } = await tx.query<{ v1_rounds: number }>(
        `INSERT INTO ${t.totals} (network_id, pool, v1_rounds) VALUES ($1, $2, 1)
         ON CONFLICT (network_id, pool) DO UPDATE SET v1_rounds = ${t.totals}.v1_rounds + 1
         RETURNING v1_rounds`,
        [c.network_id, c.contract_id],
      );
      const roundId = rows[0]!.v1_rounds - 1;
      // The push model credited each holder just before dist_all: those credits are this round's claims.
      await tx.query(
        `INSERT INTO ${t.claims} (network_id, pool, round_id, holder, token, amount, claimed_at)
         SELECT network_id, pool, $3, holder, token, amount, $5::timestamptz FROM ${t.v1_pending}
          WHERE network_id = $1 AND pool = $2 AND token = $4`,
        [c.network_id, c.contract_id, roundId, d.token, c.closed_at],
      );
      const { rows: sums } = await tx.query<{ claimed: string; n: number }>(
        `SELECT COALESCE(SUM(amount), 0)::text AS claimed, COUNT(*)::int AS n FROM ${t.v1_pending}
          WHERE network_id = $1 AND pool = $2 AND token = $3`,
        [c.network_id, c.contract_id, d.token],
      );
      await tx.query(`DELETE FROM ${t.v1_pending} WHERE network_id = $1 AND pool = $2 AND token = $3`, [c.network_id, c.contract_id, d.token]);
      await tx.query(
        `INSERT INTO ${t.rounds} (network_id, pool, round_id, pool_version, token, total_amount, total_shares, total_claimed,
                                  claim_count, created_at, claimable_from, expires_at, tx_hash)
         VALUES ($1, $2, $3, '1', $4, $5::numeric, $6::numeric, $7::numeric, $8, $9, $9, NULL, $10)
         ON CONFLICT (network_id, pool, round_id) DO NOTHING`,
        [c.network_id, c.contract_id, roundId, d.token, d.total_distributed, V1_TOTAL_SHARES, sums[0]!.claimed, Number(sums[0]!.n), c.closed_at, c.tx_hash],
      );
    },
    async AllocationWithdrawn(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `INSERT INTO ${t.withdrawals} (network_id, pool, holder, token, amount) VALUES ($1, $2, $3, $4, $5::numeric)
         ON CONFLICT (network_id, pool, holder, token) DO UPDATE SET amount = ${t.withdrawals}.amount + EXCLUDED.amount`,
        [c.network_id, c.contract_id, d.shareholder, d.token, d.amount],
      );
    },
  }),
};
