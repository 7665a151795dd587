import type { SqlExecutor } from '@dob/sql';
import {
  FEATURED_POOL_FIELDS,
  type CampaignRow,
  type EventRow,
  type FeaturedCandidate,
  type MemberRow,
  type PoolReads,
  type PoolRow,
  type PoolSort,
  type RoundRow,
} from '../queries/read-model-reader.port';
import { FEATURED_OVERRIDES_TABLE } from '../featured/featured-overrides';
import { CAMPAIGN_FIELDS } from '../projections/campaigns.projection';
import { POOL_EVENT_FIELDS } from '../projections/pool-events.projection';
import { POOL_FIELDS, POOL_LIST_ORDERS } from '../projections/pools.projection';
import { MEMBER_FIELDS } from '../projections/members.projection';
import { ROUND_FIELDS } from '../projections/rounds.projection';
import { documentColumns } from './document-columns';
import { Conditions, MEMBER_STATS, ROUND_STATUS_SQL, V, joinLearnedToken } from './views';

const POOL_COLUMNS = `${documentColumns('p', POOL_FIELDS)},
       COALESCE(m.member_count, 0) AS member_count, COALESCE(m.total_shares, 0)::text AS total_shares,
       ttd.symbol AS token_to_distribute_symbol, dt.symbol AS distribution_token_symbol`;

// Member stats and token symbols are single-row lookups by primary key (no aggregate, no second query).
const FROM_POOLS = `${V.pools} p
  LEFT JOIN (${MEMBER_STATS}) m ON m.network_id = p.network_id AND m.pool = p.address
  ${joinLearnedToken('ttd', 'p.network_id', 'p.token_to_distribute')}
  ${joinLearnedToken('dt', 'p.network_id', 'p.distribution_token')}`;

// Every order ends on (network_id, address): equal keys never reorder between requests or rebuilds. Stored keys
// match an index of the pools projection exactly (behind `listed`), so a page reads LIMIT index entries.
function poolOrder(sort: PoolSort): string {
  const { by, direction } = POOL_LIST_ORDERS[sort];
  return by === 'member_count' ? `member_count ${direction.toUpperCase()}` : `p.${by} ${direction.toUpperCase()} NULLS LAST`;
}

const STATUS = ROUND_STATUS_SQL.replaceAll('$NOW', '$3::timestamptz');

// Active = still fundraising and the deadline not passed, judged against the query's clock.
const ACTIVE = `(c.status = 'fundraising' AND c.deadline > $1::timestamptz)`;

export function sqlPoolReads(db: SqlExecutor): PoolReads {
  const count = async (sql: string, params: unknown[]) => (await db.query<{ n: number }>(sql, params)).rows[0]!.n;
  return {
    async poolNetworks(address, networkId) {
      const { rows } = await db.query<{ network_id: number }>(
        `SELECT network_id FROM ${V.pools} WHERE address = $1 ${networkId === undefined ? '' : 'AND network_id = $2'} ORDER BY network_id`,
        networkId === undefined ? [address] : [address, networkId],
      );
      return rows.map((r) => r.network_id);
    },

    async poolPage(filter, sort, slice) {
      const c = new Conditions();
      if (filter.search) c.add(`(p.name ILIKE ? OR p.ticker ILIKE ?)`, `%${filter.search.replace(/[\\%_]/g, (x) => `\\${x}`)}%`);
      if (filter.networkId !== undefined) c.add('p.network_id = ?', filter.networkId);
      if (filter.accessType) c.add('p.access_type = ?', filter.accessType);
      // One statement: the page and, as an uncorrelated scalar subquery (evaluated once), the filtered total. The
      // count needs no member stats: filters only touch the pools table.
      const where = `p.listed${c.and()}`;
      const { rows } = await db.query<PoolRow & { total_count: number }>(
        `SELECT ${POOL_COLUMNS}, (SELECT COUNT(*)::int FROM ${V.pools} p WHERE ${where}) AS total_count FROM ${FROM_POOLS} WHERE ${where}
          ORDER BY ${poolOrder(sort)}, p.network_id, p.address LIMIT ${slice.limit} OFFSET ${slice.offset}`,
        c.params,
      );
      // A page past the end has no row to carry the total (page 1 empty means none match).
      const total = rows[0]?.total_count ?? (slice.offset === 0 ? 0 : await count(`SELECT COUNT(*)::int AS n FROM ${V.pools} p WHERE ${where}`, c.params));
      return { rows: rows.map(({ total_count: _t, ...r }) => r), total };
    },

    async poolRow(networkId, address) {
      const { rows } = await db.query<PoolRow>(`SELECT ${POOL_COLUMNS} FROM ${FROM_POOLS} WHERE p.listed AND p.network_id = $1 AND p.address = $2`, [
        networkId,
        address,
      ]);
      return rows[0] ?? null;
    },

    async members(networkId, pool, slice) {
      const { rows } = await db.query<MemberRow & { total: string; n: number }>(
        `SELECT ${documentColumns('m', MEMBER_FIELDS)}, SUM(m.shares) OVER ()::text AS total, COUNT(*) OVER ()::int AS n
           FROM ${V.members} m WHERE m.network_id = $1 AND m.pool = $2 AND m.shares > 0
          ORDER BY m.shares DESC, m.holder ASC LIMIT ${slice.limit} OFFSET ${slice.offset}`,
        [networkId, pool],
      );
      if (rows[0]) return { rows: rows.map(({ total: _s, n: _n, ...member }) => member), supply: BigInt(rows[0].total), total: rows[0].n };
      const total = await count(`SELECT COUNT(*)::int AS n FROM ${V.members} WHERE network_id = $1 AND pool = $2 AND shares > 0`, [networkId, pool]);
      return { rows: [], supply: 0n, total };
    },

    async rounds(networkId, pool, now, status, slice) {
      const filter = status ? `AND ${STATUS} = $4` : '';
      const params = [networkId, pool, now.toISOString(), ...(status ? [status] : [])];
      const [rows, total] = await Promise.all([
        db.query<RoundRow>(
          `SELECT ${documentColumns('r', ROUND_FIELDS)}, ${STATUS} AS status
             FROM ${V.rounds} r WHERE r.network_id = $1 AND r.pool = $2 ${filter}
            ORDER BY r.created_at DESC, r.round_id DESC LIMIT ${slice.limit} OFFSET ${slice.offset}`,
          params,
        ),
        count(`SELECT COUNT(*)::int AS n FROM ${V.rounds} r WHERE r.network_id = $1 AND r.pool = $2 AND $3::timestamptz IS NOT NULL ${filter}`, params),
      ]);
      return { rows: rows.rows, total };
    },

    async poolEvents(networkId, pool, eventType, slice) {
      const filter = eventType ? 'AND event_type = $3' : '';
      const params = [networkId, pool, ...(eventType ? [eventType] : [])];
      const [rows, total] = await Promise.all([
        db.query<EventRow>(
          `SELECT ${documentColumns('e', POOL_EVENT_FIELDS)}
             FROM ${V.events} e WHERE network_id = $1 AND pool = $2 ${filter}
            ORDER BY date DESC, chain_event_id DESC, event_id DESC LIMIT ${slice.limit} OFFSET ${slice.offset}`,
          params,
        ),
        count(`SELECT COUNT(*)::int AS n FROM ${V.events} WHERE network_id = $1 AND pool = $2 ${filter}`, params),
      ]);
      return { rows: rows.rows, total };
    },

    async featuredCandidates(now, networkId) {
      const params: unknown[] = [now.toISOString()];
      let filter = '';
      if (networkId !== undefined) {
        params.push(networkId);
        filter = `AND p.network_id = $2`;
      }
      const { rows } = await db.query<FeaturedCandidate>(
        `SELECT ${documentColumns('p', FEATURED_POOL_FIELDS)},
                COALESCE(m.member_count, 0) AS member_count, COALESCE(s.volume, 0)::text AS volume_24h,
                o.reason AS override_reason, o.position AS override_position
           FROM ${V.pools} p
           LEFT JOIN (${MEMBER_STATS}) m ON m.network_id = p.network_id AND m.pool = p.address
           LEFT JOIN (SELECT network_id, pool, SUM(total_price) AS volume FROM ${V.sales}
                       WHERE sold_at > $1::timestamptz - interval '24 hours'
                       GROUP BY network_id, pool) s ON s.network_id = p.network_id AND s.pool = p.address
           LEFT JOIN ${FEATURED_OVERRIDES_TABLE} o ON o.network_id = p.network_id AND o.address = p.address
          WHERE p.listed ${filter}
          ORDER BY p.network_id, p.address`,
        params,
      );
      return rows;
    },

    async campaigns(now, q) {
      const c = new Conditions([now.toISOString()]);
      if (q.status === 'active') c.where.push(ACTIVE);
      if (q.networkId !== undefined) c.add('c.network_id = ?', q.networkId);
      const { rows } = await db.query<CampaignRow>(
        `SELECT ${documentColumns('c', CAMPAIGN_FIELDS)}, COALESCE(pc.name, ps.name) AS name, COALESCE(pc.ticker, ps.ticker) AS ticker, ${ACTIVE} AS active,
                (SELECT COUNT(*)::int FROM ${V.contributors} x WHERE x.network_id = c.network_id AND x.campaign = c.address AND x.shares > 0) AS contributors
           FROM ${V.campaigns} c
           LEFT JOIN ${V.pools} pc ON pc.network_id = c.network_id AND pc.address = c.address
           LEFT JOIN ${V.pools} ps ON ps.network_id = c.network_id AND ps.address = c.splitter
          WHERE true${c.and()}
          ORDER BY c.network_id, c.address`,
        c.params,
      );
      return rows;
    },
  };
}
