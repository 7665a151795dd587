import type { SqlExecutor } from '@dob/sql';
import type { ListingRow, ListingSort, MarketReads } from '../queries/read-model-reader.port';
import { LISTING_FIELDS, LISTING_ORDERS } from '../projections/marketplace.projection';
import { documentColumns } from './document-columns';
import { Conditions, V, joinLearnedToken } from './views';
import { canonicalSalesInstant, poolSalesBoundaries, SALES_WINDOWS } from './sales-window-instant';

// Each order matches an index of the marketplace projection behind `status`, and ends on sale_address.
const order = (sort: ListingSort) => LISTING_ORDERS[sort].map((key) => `l.${key}`).join(', ');

const LISTING_COLUMNS = `${documentColumns('l', LISTING_FIELDS)},
       p.name AS pool_name, p.ticker AS pool_ticker, p.pool_version, tk.symbol AS payment_token_symbol`;

/** Listings from `source` (the view, or a page of it aliased l) with their pool's name and token's symbol. */
const listingsFrom = (source: string, extraColumns = '') => `SELECT ${LISTING_COLUMNS}${extraColumns}
  FROM ${source} LEFT JOIN ${V.pools} p ON p.network_id = l.network_id AND p.address = l.pool
  ${joinLearnedToken('tk', 'l.network_id', 'l.payment_token')}`;

const SELECT_LISTINGS = listingsFrom(`${V.listings} l`);

export function sqlMarketReads(db: SqlExecutor): MarketReads {
  const salesBoundaries = poolSalesBoundaries(db);
  return {
    async listingPage(filter, sort, slice) {
      const c = new Conditions();
      if (filter.status !== 'all') c.add('l.status = ?', filter.status);
      if (filter.networkId !== undefined) c.add('l.network_id = ?', filter.networkId);
      if (filter.paymentTokens) c.add('l.payment_token = ANY(?::text[])', filter.paymentTokens);
      if (filter.seller) c.add('l.seller = ?', filter.seller);
      const where = c.where.length ? `WHERE ${c.where.join(' AND ')}` : '';
      const orderBy = `${order(sort)}, l.sale_address`;
      // One statement: the page is cut from the listings alone (an index in the sort's order serves it), then joined
      // to pool names and token symbols; the filtered total rides along as an uncorrelated scalar subquery.
      const page = `(SELECT l.*, (SELECT COUNT(*)::int FROM ${V.listings} l ${where}) AS total_count
                       FROM ${V.listings} l ${where} ORDER BY ${orderBy} LIMIT ${slice.limit} OFFSET ${slice.offset}) l`;
      const { rows } = await db.query<ListingRow & { total_count: number }>(`${listingsFrom(page, ', l.total_count')} ORDER BY ${orderBy}`, c.params);
      // A page past the end has no row to carry the total (page 1 empty means none match).
      const total =
        rows[0]?.total_count ??
        (slice.offset === 0 ? 0 : (await db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${V.listings} l ${where}`, c.params)).rows[0]!.n);
      return { rows: rows.map(({ total_count: _t, ...r }) => r), total };
    },

    async poolListings(networkId, pool, status, sort) {
      const byStatus = status === 'all' ? '' : 'AND l.status = $3';
      const { rows } = await db.query<ListingRow>(
        `${SELECT_LISTINGS} WHERE l.network_id = $1 AND l.pool = $2 ${byStatus} ORDER BY ${order(sort)}, l.sale_address`,
        status === 'all' ? [networkId, pool] : [networkId, pool, status],
      );
      return rows;
    },

    async listing(saleAddress) {
      const { rows } = await db.query<ListingRow>(`${SELECT_LISTINGS} WHERE l.sale_address = $1`, [saleAddress]);
      return rows[0] ?? null;
    },

    async marketStats(networkId, pool, now) {
      const instant = canonicalSalesInstant(await salesBoundaries(networkId, pool), now);
      const [name, listed, sold] = await Promise.all([
        db.query<{ name: string | null }>(`SELECT name FROM ${V.pools} WHERE network_id = $1 AND address = $2`, [networkId, pool]),
        db.query<{ floor: string | null; highest: string | null; n: number; shares: string; floor_token: string | null }>(
          `SELECT MIN(price_per_share)::text AS floor, MAX(price_per_share)::text AS highest, COUNT(*)::int AS n,
                  COALESCE(SUM(shares_amount), 0)::text AS shares,
                  (SELECT payment_token FROM ${V.listings} WHERE network_id = $1 AND pool = $2 AND status = 'active'
                    ORDER BY price_per_share, created_at DESC, sale_address LIMIT 1) AS floor_token
             FROM ${V.listings} WHERE network_id = $1 AND pool = $2 AND status = 'active'`,
          [networkId, pool],
        ),
        db.query<{ v24: string; v7: string; v30: string; total: string; n: number; last_token: string | null }>(
          `SELECT COALESCE(SUM(total_price) FILTER (WHERE sold_at > $3::timestamptz - interval '${SALES_WINDOWS.v24} hours'), 0)::text AS v24,
                  COALESCE(SUM(total_price) FILTER (WHERE sold_at > $3::timestamptz - interval '${SALES_WINDOWS.v7} hours'), 0)::text AS v7,
                  COALESCE(SUM(total_price) FILTER (WHERE sold_at > $3::timestamptz - interval '${SALES_WINDOWS.v30} hours'), 0)::text AS v30,
                  COALESCE(SUM(total_price), 0)::text AS total, COUNT(*)::int AS n,
                  (SELECT payment_token FROM ${V.sales} WHERE network_id = $1 AND pool = $2 ORDER BY sold_at DESC, event_id LIMIT 1) AS last_token
             FROM ${V.sales} WHERE network_id = $1 AND pool = $2`,
          [networkId, pool, instant],
        ),
      ]);
      const l = listed.rows[0]!;
      const s = sold.rows[0]!;
      return {
        pool_name: name.rows[0]?.name ?? null,
        floor: l.floor,
        highest: l.highest,
        active_listings: l.n,
        shares_listed: l.shares,
        floor_token: l.floor_token,
        v24: s.v24,
        v7: s.v7,
        v30: s.v30,
        total: s.total,
        sales: s.n,
        last_token: s.last_token,
      };
    },

    async campaignInfo(networkId, address) {
      const { rows } = await db.query<{ payment_token: string; name: string | null }>(
        `SELECT c.payment_token, COALESCE(pc.name, ps.name) AS name
           FROM ${V.campaigns} c
           LEFT JOIN ${V.pools} pc ON pc.network_id = c.network_id AND pc.address = c.address
           LEFT JOIN ${V.pools} ps ON ps.network_id = c.network_id AND ps.address = c.splitter
          WHERE c.network_id = $1 AND c.address = $2`,
        [networkId, address],
      );
      return rows[0] ?? null;
    },

    async poolInfo(networkId, address) {
      const { rows } = await db.query<{ name: string | null; pool_version: string | null }>(
        `SELECT name, pool_version FROM ${V.pools} WHERE network_id = $1 AND address = $2`,
        [networkId, address],
      );
      return rows[0] ?? null;
    },
  };
}
