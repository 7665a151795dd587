import { formatAmount } from '../money';
import { resolvePoolNetwork } from './pool-resolution';
import { V, iso, int, offsetOf, type Page, type Paging, type QueryContext } from './query-context';
import { joinLearnedToken, type TokenDirectory, type TokenResolver } from './token-directory';

export const LISTING_SORTS = ['created_desc', 'created_asc', 'price_asc', 'price_desc'] as const;
export type ListingSort = (typeof LISTING_SORTS)[number];
export const POOL_LISTING_SORTS = ['price_asc', 'price_desc', 'created_desc'] as const;
export type PoolListingSort = (typeof POOL_LISTING_SORTS)[number];
/** Brief: `status` beside is_active; lists show active listings unless asked (`all` = every status). */
export const LISTING_STATUSES = ['active', 'sold', 'cancelled', 'all'] as const;
export type ListingStatusFilter = (typeof LISTING_STATUSES)[number];

export interface Listing {
  sale_address: string;
  pool_address: string;
  pool_name: string | null;
  pool_ticker: string | null;
  network_id: number;
  seller_address: string;
  shares_amount: number;
  price_per_share: string;
  total_price: string;
  payment_token: string | null;
  payment_token_address: string;
  is_active: boolean;
  status: 'active' | 'sold' | 'cancelled';
  created_at: string | null;
}

export type PoolListing = Pick<Listing, 'sale_address' | 'seller_address' | 'shares_amount' | 'price_per_share' | 'total_price' | 'payment_token' | 'is_active' | 'status' | 'created_at'>;

export interface MarketplaceStats {
  pool_address: string;
  pool_name: string | null;
  network_id: number;
  floor_price: string | null;
  highest_price: string | null;
  payment_token: string | null;
  active_listings: number;
  total_shares_listed: number;
  volume_24h: string;
  volume_7d: string;
  volume_30d: string;
  total_volume: string;
  total_sales: number;
}

export interface ListingRow {
  sale_address: string;
  network_id: number;
  pool: string;
  seller: string;
  shares_amount: string;
  price_per_share: string;
  payment_token: string;
  status: 'active' | 'sold' | 'cancelled';
  created_at: Date;
  pool_name: string | null;
  pool_ticker: string | null;
  /** The payment token's symbol learned by the tokens read model (null if none). */
  payment_token_symbol: string | null;
}

const ORDER: Record<ListingSort, string> = {
  created_desc: 'l.created_at DESC, l.chain_event_id DESC',
  created_asc: 'l.created_at ASC, l.chain_event_id ASC',
  price_asc: 'l.price_per_share ASC, l.created_at DESC',
  price_desc: 'l.price_per_share DESC, l.created_at DESC',
};

const LISTING_COLUMNS = `l.sale_address, l.network_id, l.pool, l.seller, l.shares_amount::text AS shares_amount,
       l.price_per_share::text AS price_per_share, l.payment_token, l.status, l.created_at, l.chain_event_id,
       p.name AS pool_name, p.ticker AS pool_ticker, tk.symbol AS payment_token_symbol`;

/** Listings from `source` (the view, or a page of it aliased l) with their pool's name and token's symbol. */
const listingsFrom = (source: string, extraColumns = '') => `SELECT ${LISTING_COLUMNS}${extraColumns}
  FROM ${source} LEFT JOIN ${V.pools} p ON p.network_id = l.network_id AND p.address = l.pool
  ${joinLearnedToken('tk', 'l.network_id', 'l.payment_token')}`;

export const SELECT_LISTINGS = listingsFrom(`${V.listings} l`);

/** The tokens of listing rows (symbols joined by the query; configured tokens win). */
export function listingTokens(directory: TokenDirectory, rows: readonly ListingRow[]): TokenResolver {
  return directory.withLearned(rows.flatMap((r) => (r.payment_token_symbol === null ? [] : [{ network_id: r.network_id, address: r.payment_token, symbol: r.payment_token_symbol }])));
}

export function toListing(r: ListingRow, tokens: TokenResolver): Listing {
  const t = tokens.get(r.network_id, r.payment_token);
  return {
    sale_address: r.sale_address,
    pool_address: r.pool,
    pool_name: r.pool_name,
    pool_ticker: r.pool_ticker,
    network_id: r.network_id,
    seller_address: r.seller,
    shares_amount: int(r.shares_amount),
    price_per_share: formatAmount(r.price_per_share, t.decimals),
    // On chain a buy pays shares × price exactly (ListingSold: total = shares × price).
    total_price: formatAmount(BigInt(r.shares_amount) * BigInt(r.price_per_share), t.decimals),
    payment_token: t.symbol,
    payment_token_address: r.payment_token,
    is_active: r.status === 'active',
    status: r.status,
    created_at: iso(r.created_at),
  };
}

export function toPoolListing(l: Listing): PoolListing {
  const { sale_address, seller_address, shares_amount, price_per_share, total_price, payment_token, is_active, status, created_at } = l;
  return { sale_address, seller_address, shares_amount, price_per_share, total_price, payment_token, is_active, status, created_at };
}

export interface ListingQuery extends Paging {
  readonly networkId?: number;
  readonly paymentToken?: string;
  readonly sort: ListingSort;
  readonly status: ListingStatusFilter;
  readonly seller?: string;
}

export class MarketplaceQueries {
  constructor(private readonly ctx: QueryContext) {}

  async listings(q: ListingQuery): Promise<Page<Listing>> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (q.status !== 'all') add('l.status = ?', q.status);
    if (q.networkId !== undefined) add('l.network_id = ?', q.networkId);
    if (q.paymentToken) add('l.payment_token = ANY(?::text[])', (await this.ctx.tokens.lookup()).addressesFor(q.networkId, q.paymentToken));
    if (q.seller) add('l.seller = ?', q.seller);
    const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const order = `${ORDER[q.sort]}, l.sale_address`;
    // One statement: the page is cut from the listings alone (an index in the sort's order serves it), then joined
    // to pool names and token symbols; the filtered total rides along as an uncorrelated scalar subquery.
    const page = `(SELECT l.*, (SELECT COUNT(*)::int FROM ${V.listings} l ${filter}) AS total_count
                     FROM ${V.listings} l ${filter} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${offsetOf(q)}) l`;
    const { rows } = await this.ctx.db.query<ListingRow & { total_count: number }>(
      `${listingsFrom(page, ', l.total_count')} ORDER BY ${order}`,
      params,
    );
    // A page past the end has no row to carry the total (page 1 empty means none match).
    const total = rows[0]?.total_count ?? (offsetOf(q) === 0 ? 0 : await this.count(filter, params));
    const tokens = listingTokens(this.ctx.tokens, rows);
    return { items: rows.map((r) => toListing(r, tokens)), page: q.page, limit: q.limit, total };
  }

  private async count(filter: string, params: unknown[]): Promise<number> {
    const { rows } = await this.ctx.db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${V.listings} l ${filter}`, params);
    return rows[0]!.n;
  }

  async poolListings(q: { address: string; networkId?: number; sort: PoolListingSort; status: ListingStatusFilter }): Promise<PoolListing[]> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const status = q.status === 'all' ? '' : 'AND l.status = $3';
    const { rows } = await this.ctx.db.query<ListingRow>(
      `${SELECT_LISTINGS} WHERE l.network_id = $1 AND l.pool = $2 ${status} ORDER BY ${ORDER[q.sort]}, l.sale_address`,
      q.status === 'all' ? [network, q.address] : [network, q.address, q.status],
    );
    const tokens = listingTokens(this.ctx.tokens, rows);
    return rows.map((r) => toPoolListing(toListing(r, tokens)));
  }

  /** A listing by its sale_address (any status), or null. */
  async listing(saleAddress: string): Promise<Listing | null> {
    const { rows } = await this.ctx.db.query<ListingRow>(`${SELECT_LISTINGS} WHERE l.sale_address = $1`, [saleAddress]);
    return rows[0] ? toListing(rows[0], listingTokens(this.ctx.tokens, rows)) : null;
  }

  /**
   * Rolling windows are computed now, from the sales table: a sale counts in volume_24h while sold_at is within
   * the last 24 h of the query's clock, so the numbers move with time without any event. No upper bound: a ledger
   * close time can run ahead of this server's clock (skew; the devnet's clock control), and such a sale is recent.
   */
  async stats(q: { address: string; networkId?: number }): Promise<MarketplaceStats> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const now = this.ctx.now().toISOString();
    const tokens = await this.ctx.tokens.lookup();
    const [pool, listed, sold] = await Promise.all([
      this.ctx.db.query<{ name: string | null }>(`SELECT name FROM ${V.pools} WHERE network_id = $1 AND address = $2`, [network, q.address]),
      this.ctx.db.query<{ floor: string | null; highest: string | null; n: number; shares: string; floor_token: string | null }>(
        `SELECT MIN(price_per_share)::text AS floor, MAX(price_per_share)::text AS highest, COUNT(*)::int AS n,
                COALESCE(SUM(shares_amount), 0)::text AS shares,
                (SELECT payment_token FROM ${V.listings} WHERE network_id = $1 AND pool = $2 AND status = 'active'
                  ORDER BY price_per_share, created_at DESC, sale_address LIMIT 1) AS floor_token
           FROM ${V.listings} WHERE network_id = $1 AND pool = $2 AND status = 'active'`,
        [network, q.address],
      ),
      this.ctx.db.query<{ v24: string; v7: string; v30: string; total: string; n: number; last_token: string | null }>(
        `SELECT COALESCE(SUM(total_price) FILTER (WHERE sold_at > $3::timestamptz - interval '24 hours'), 0)::text AS v24,
                COALESCE(SUM(total_price) FILTER (WHERE sold_at > $3::timestamptz - interval '7 days'), 0)::text AS v7,
                COALESCE(SUM(total_price) FILTER (WHERE sold_at > $3::timestamptz - interval '30 days'), 0)::text AS v30,
                COALESCE(SUM(total_price), 0)::text AS total, COUNT(*)::int AS n,
                (SELECT payment_token FROM ${V.sales} WHERE network_id = $1 AND pool = $2 ORDER BY sold_at DESC, event_id LIMIT 1) AS last_token
           FROM ${V.sales} WHERE network_id = $1 AND pool = $2`,
        [network, q.address, now],
      ),
    ]);
    const l = listed.rows[0]!;
    const s = sold.rows[0]!;
    const token = l.floor_token ?? s.last_token;
    const t = tokens.get(network, token);
    const money = (v: string) => formatAmount(v, t.decimals);
    return {
      pool_address: q.address,
      pool_name: pool.rows[0]?.name ?? null,
      network_id: network,
      floor_price: l.floor === null ? null : money(l.floor),
      highest_price: l.highest === null ? null : money(l.highest),
      payment_token: t.symbol,
      active_listings: l.n,
      total_shares_listed: int(l.shares),
      volume_24h: money(s.v24),
      volume_7d: money(s.v7),
      volume_30d: money(s.v30),
      total_volume: money(s.total),
      total_sales: s.n,
    };
  }
}
