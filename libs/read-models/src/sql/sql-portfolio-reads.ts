import type { SqlExecutor } from '@dob/sql';
import {
  HOLDING_MEMBER_FIELDS,
  HOLDING_POOL_FIELDS,
  SCHEDULE_POOL_FIELDS,
  WALLET_ROUND_FIELDS,
  type HoldingRow,
  type HistoryRow,
  type PortfolioReads,
  type SchedulePoolRow,
  type WalletRoundRow,
} from '../queries/read-model-reader.port';
import { HISTORY_ENTRY_FIELDS } from '../projections/wallet-history.projection';
import { documentColumns } from './document-columns';
import { canonicalStatusInstant, roundBoundaries } from './round-status-instant';
import { Conditions, MEMBER_STATS, ROUND_STATUS_SQL, V } from './views';

const STATUS = ROUND_STATUS_SQL.replaceAll('$NOW', '$2::timestamptz');

/** The wallet's V2 rounds not claimed by it (one correlated subquery each way, sharing this predicate). */
const UNCLAIMED_V2 = `r.network_id = h.network_id AND r.pool = h.pool AND r.pool_version = '2' AND ${STATUS} = 'completed'
  AND NOT EXISTS (SELECT 1 FROM ${V.claims} c WHERE c.network_id = r.network_id AND c.pool = r.pool
                   AND c.round_id = r.round_id AND c.holder = h.holder)`;

export function sqlPortfolioReads(db: SqlExecutor): PortfolioReads {
  // These two queries use the clock only for round status: they run at the canonical instant of now's interval
  // between round boundaries (same rows; the read-result cache can answer them again, round-status-instant.ts).
  const statusInstant = async (now: Date) => canonicalStatusInstant(await roundBoundaries(db), now);
  return {
    async holdings(wallet, now, networkId, pool) {
      const c = new Conditions([wallet, await statusInstant(now)]);
      if (networkId !== undefined) c.add('h.network_id = ?', networkId);
      if (pool !== undefined) c.add('h.pool = ?', pool);
      // div(): the exact integer quotient, the contract's floor(total × balance / total_shares) for these non-negative values.
      const { rows } = await db.query<HoldingRow>(
        `SELECT ${documentColumns('h', HOLDING_MEMBER_FIELDS)}, ${documentColumns('p', HOLDING_POOL_FIELDS)},
                COALESCE(m.total_shares, 0)::text AS total_shares,
                (SELECT COALESCE(SUM(c.amount), 0)::text FROM ${V.claims} c
                  WHERE c.network_id = h.network_id AND c.pool = h.pool AND c.holder = h.holder) AS earned,
                (SELECT COALESCE(SUM(div(r.total_amount * h.shares, NULLIF(r.total_shares, 0))), 0)::text FROM ${V.rounds} r
                  WHERE ${UNCLAIMED_V2}) AS v2_unclaimed,
                (SELECT COUNT(*)::int FROM ${V.rounds} r WHERE ${UNCLAIMED_V2}) AS v2_unclaimed_rounds,
                (SELECT COALESCE(SUM(c.amount), 0)::text FROM ${V.claims} c JOIN ${V.rounds} r
                    ON r.network_id = c.network_id AND r.pool = c.pool AND r.round_id = c.round_id AND r.pool_version = '1'
                  WHERE c.network_id = h.network_id AND c.pool = h.pool AND c.holder = h.holder) AS v1_credited,
                (SELECT COALESCE(SUM(w.amount), 0)::text FROM ${V.withdrawals} w
                  WHERE w.network_id = h.network_id AND w.pool = h.pool AND w.holder = h.holder) AS v1_withdrawn
           FROM ${V.members} h
           JOIN ${V.pools} p ON p.network_id = h.network_id AND p.address = h.pool
           LEFT JOIN (${MEMBER_STATS}) m ON m.network_id = h.network_id AND m.pool = h.pool
          WHERE h.holder = $1 AND h.shares > 0${c.and()}
          ORDER BY h.network_id, h.pool`,
        c.params,
      );
      return rows;
    },

    async walletRounds(wallet, now, networkId) {
      const c = new Conditions([wallet, await statusInstant(now)]);
      if (networkId !== undefined) c.add('h.network_id = ?', networkId);
      const { rows } = await db.query<WalletRoundRow>(
        `SELECT ${documentColumns('r', WALLET_ROUND_FIELDS)}, p.name, div(r.total_amount * h.shares, NULLIF(r.total_shares, 0))::text AS estimate,
                ${STATUS} AS status
           FROM ${V.members} h
           JOIN ${V.rounds} r ON r.network_id = h.network_id AND r.pool = h.pool AND r.pool_version = '2'
           LEFT JOIN ${V.pools} p ON p.network_id = r.network_id AND p.address = r.pool
          WHERE h.holder = $1 AND h.shares > 0${c.and()} AND ${STATUS} IN ('completed', 'pending')
            AND NOT EXISTS (SELECT 1 FROM ${V.claims} c WHERE c.network_id = r.network_id AND c.pool = r.pool
                             AND c.round_id = r.round_id AND c.holder = h.holder)
          ORDER BY r.claimable_from, r.network_id, r.pool, r.round_id`,
        c.params,
      );
      return rows;
    },

    async scheduledPools(wallet, networkId) {
      const c = new Conditions([wallet]);
      if (networkId !== undefined) c.add('h.network_id = ?', networkId);
      const { rows } = await db.query<SchedulePoolRow>(
        `SELECT ${documentColumns('p', SCHEDULE_POOL_FIELDS)}
           FROM ${V.members} h JOIN ${V.pools} p ON p.network_id = h.network_id AND p.address = h.pool
          WHERE h.holder = $1 AND h.shares > 0 AND p.schedule_enabled${c.and()}
          ORDER BY p.network_id, p.address`,
        c.params,
      );
      return rows;
    },

    async history(wallet, filter, slice) {
      const c = new Conditions([wallet]);
      if (filter.networkId !== undefined) c.add('e.network_id = ?', filter.networkId);
      if (filter.type) c.add('e.type = ?', filter.type);
      const [rows, count] = await Promise.all([
        db.query<HistoryRow>(
          `SELECT ${documentColumns('e', HISTORY_ENTRY_FIELDS)}, p.name
             FROM ${V.history} e LEFT JOIN ${V.pools} p ON p.network_id = e.network_id AND p.address = e.pool
            WHERE e.wallet = $1${c.and()}
            ORDER BY e.occurred_at DESC, e.chain_event_id DESC, e.event_id, e.side LIMIT ${slice.limit} OFFSET ${slice.offset}`,
          c.params,
        ),
        db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${V.history} e WHERE e.wallet = $1${c.and()}`, c.params),
      ]);
      return { rows: rows.rows, total: count.rows[0]!.n };
    },

    async campaignTokens() {
      const { rows } = await db.query<{ network_id: number; address: string; payment_token: string }>(
        `SELECT network_id, address, payment_token FROM ${V.campaigns}`,
      );
      return new Map(rows.map((r) => [`${r.network_id}/${r.address}`, r.payment_token]));
    },
  };
}
