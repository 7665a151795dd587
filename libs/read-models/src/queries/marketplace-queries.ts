import { formatAmount } from '@dob/domain';
import { resolvePoolNetwork } from './pool-resolution';
import { iso, int, sliceOf, type Page, type Paging, type QueryContext } from './query-context';
import { LISTING_SORTS, LISTING_STATUSES, type ListingRow, type ListingSort, type ListingStatusFilter } from './read-model-reader.port';
import type { TokenDirectory, TokenResolver } from './token-directory';

export { LISTING_SORTS, LISTING_STATUSES, type ListingRow, type ListingSort, type ListingStatusFilter };
export const POOL_LISTING_SORTS = ['price_asc', 'price_desc', 'created_desc'] as const;
export type PoolListingSort = (typeof POOL_LISTING_SORTS)[number];

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

export type PoolListing = Pick<
  Listing,
  'sale_address' | 'seller_address' | 'shares_amount' | 'price_per_share' | 'total_price' | 'payment_token' | 'is_active' | 'status' | 'created_at'
>;

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

/** The tokens of listing rows (symbols joined by the query; configured tokens win). */
export function listingTokens(directory: TokenDirectory, rows: readonly ListingRow[]): TokenResolver {
  return directory.withLearned(
    rows.flatMap((r) => (r.payment_token_symbol === null ? [] : [{ network_id: r.network_id, address: r.payment_token, symbol: r.payment_token_symbol }])),
  );
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
    const paymentTokens = q.paymentToken ? (await this.ctx.tokens.lookup()).addressesFor(q.networkId, q.paymentToken) : undefined;
    const { rows, total } = await this.ctx.reader.listingPage(
      { status: q.status, networkId: q.networkId, paymentTokens, seller: q.seller },
      q.sort,
      sliceOf(q),
    );
    const tokens = listingTokens(this.ctx.tokens, rows);
    return { items: rows.map((r) => toListing(r, tokens)), page: q.page, limit: q.limit, total };
  }

  async poolListings(q: { address: string; networkId?: number; sort: PoolListingSort; status: ListingStatusFilter }): Promise<PoolListing[]> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const rows = await this.ctx.reader.poolListings(network, q.address, q.status, q.sort);
    const tokens = listingTokens(this.ctx.tokens, rows);
    return rows.map((r) => toPoolListing(toListing(r, tokens)));
  }

  /** A listing by its sale_address (any status), or null. */
  async listing(saleAddress: string): Promise<Listing | null> {
    const row = await this.ctx.reader.listing(saleAddress);
    return row ? toListing(row, listingTokens(this.ctx.tokens, [row])) : null;
  }

  /**
   * Rolling windows are computed now, from the sales table: a sale counts in volume_24h while sold_at is within
   * the last 24 h of the query's clock, so the numbers move with time without any event. No upper bound: a ledger
   * close time can run ahead of this server's clock (skew; the devnet's clock control), and such a sale is recent.
   */
  async stats(q: { address: string; networkId?: number }): Promise<MarketplaceStats> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const [s, tokens] = await Promise.all([this.ctx.reader.marketStats(network, q.address, this.ctx.now()), this.ctx.tokens.lookup()]);
    const t = tokens.get(network, s.floor_token ?? s.last_token);
    const money = (v: string) => formatAmount(v, t.decimals);
    return {
      pool_address: q.address,
      pool_name: s.pool_name,
      network_id: network,
      floor_price: s.floor === null ? null : money(s.floor),
      highest_price: s.highest === null ? null : money(s.highest),
      payment_token: t.symbol,
      active_listings: s.active_listings,
      total_shares_listed: int(s.shares_listed),
      volume_24h: money(s.v24),
      volume_7d: money(s.v7),
      volume_30d: money(s.v30),
      total_volume: money(s.total),
      total_sales: s.sales,
    };
  }
}
