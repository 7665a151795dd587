import { formatAmount } from '@dob/domain';
import { LISTING_FIELDS, type ListingStatus } from '../projections/marketplace.projection';
import { ApiView, computed, shownFields } from './api-view';
import { resolvePoolNetwork } from './pool-resolution';
import { iso, int, sliceOf, type Page, type Paging, type QueryContext } from './query-context';
import { LISTING_SORTS, LISTING_STATUSES, type ListingRow, type ListingSort, type ListingStatusFilter, type MarketStatsRow } from './read-model-reader.port';
import { bool, int as intSchema, money, nstr, str, time, type JsonSchema } from './response-schemas';
import type { TokenDirectory, TokenResolver } from './token-directory';

export { LISTING_SORTS, LISTING_STATUSES, type ListingRow, type ListingSort, type ListingStatusFilter };
export const POOL_LISTING_SORTS = ['price_asc', 'price_desc', 'created_desc'] as const;
export type PoolListingSort = (typeof POOL_LISTING_SORTS)[number];

const listing = shownFields(LISTING_FIELDS);
interface ListingContext {
  readonly tokens: TokenResolver;
}
const shown = <V>(schema: JsonSchema, value: (r: ListingRow, c: ListingContext) => V) => computed(schema, value);
const priced = (amount: (r: ListingRow) => bigint | string) =>
  shown(money, (r, c) => formatAmount(amount(r), c.tokens.get(r.network_id, r.payment_token).decimals));

/** What a listing and a pool's listing both show: the listing's own terms, in the order both send them. */
const TERMS = {
  seller_address: listing.plain('seller'),
  shares_amount: shown(intSchema, (r) => int(r.shares_amount)),
  price_per_share: priced((r) => r.price_per_share),
  // On chain a buy pays shares × price exactly (ListingSold: total = shares × price).
  total_price: priced((r) => BigInt(r.shares_amount) * BigInt(r.price_per_share)),
  payment_token: shown(nstr, (r, c) => c.tokens.get(r.network_id, r.payment_token).symbol),
  payment_token_address: listing.plain('payment_token'),
  is_active: shown(bool, (r) => r.status === 'active'),
  status: shown({ ...str, enum: ['active', 'sold', 'cancelled'] }, (r): ListingStatus => r.status),
  created_at: shown(time, (r) => iso(r.created_at)),
};

/** A listing as the marketplace lists it, in the order the API sends it. */
export const LISTING = new ApiView({
  sale_address: listing.plain('sale_address', { example: 'SALE_0f1e2d3c4b5a69788796a5b4c3d2e1f0' }),
  pool_address: listing.plain('pool'),
  pool_name: shown(nstr, (r) => r.pool_name),
  pool_ticker: shown(nstr, (r) => r.pool_ticker),
  network_id: listing.plain('network_id'),
  ...TERMS,
});

/** A listing in its pool's list: no pool, no token address. */
export const POOL_LISTING = new ApiView({
  sale_address: listing.plain('sale_address'),
  seller_address: TERMS.seller_address,
  shares_amount: TERMS.shares_amount,
  price_per_share: TERMS.price_per_share,
  total_price: TERMS.total_price,
  payment_token: TERMS.payment_token,
  is_active: TERMS.is_active,
  status: TERMS.status,
  created_at: TERMS.created_at,
});

export type Listing = ReturnType<typeof LISTING.item>;
export type PoolListing = ReturnType<typeof POOL_LISTING.item>;

/** What the stats read beyond their row: the pool asked about, and the token their prices are in. */
interface StatsContext {
  readonly pool: string;
  readonly networkId: number;
  readonly token: { readonly symbol: string | null; readonly decimals: number };
}
const stat = <V>(schema: JsonSchema, value: (s: MarketStatsRow, c: StatsContext) => V) => computed(schema, value);
const inToken = (value: (s: MarketStatsRow) => string) => stat(money, (s, c) => formatAmount(value(s), c.token.decimals));
const inTokenOrNull = (value: (s: MarketStatsRow) => string | null) =>
  stat({ ...money, nullable: true }, (s, c) => {
    const v = value(s);
    return v === null ? null : formatAmount(v, c.token.decimals);
  });

/** A pool's marketplace stats as the API sends them (aggregates of its listings and sales, in one token's units). */
export const MARKETPLACE_STATS = new ApiView({
  pool_address: stat(str, (_s, c) => c.pool),
  pool_name: stat(nstr, (s) => s.pool_name),
  network_id: stat(intSchema, (_s, c) => c.networkId),
  floor_price: inTokenOrNull((s) => s.floor),
  highest_price: inTokenOrNull((s) => s.highest),
  payment_token: stat(nstr, (_s, c) => c.token.symbol),
  active_listings: stat(intSchema, (s) => s.active_listings),
  total_shares_listed: stat(intSchema, (s) => int(s.shares_listed)),
  volume_24h: inToken((s) => s.v24),
  volume_7d: inToken((s) => s.v7),
  volume_30d: inToken((s) => s.v30),
  total_volume: inToken((s) => s.total),
  total_sales: stat(intSchema, (s) => s.sales),
});
export type MarketplaceStats = ReturnType<typeof MARKETPLACE_STATS.item>;

/** The tokens of listing rows (symbols joined by the query; configured tokens win). */
export function listingTokens(directory: TokenDirectory, rows: readonly ListingRow[]): TokenResolver {
  return directory.withLearned(
    rows.flatMap((r) => (r.payment_token_symbol === null ? [] : [{ network_id: r.network_id, address: r.payment_token, symbol: r.payment_token_symbol }])),
  );
}

export function toListing(r: ListingRow, tokens: TokenResolver): Listing {
  return LISTING.item(r, { tokens });
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
    return rows.map((r) => POOL_LISTING.item(r, { tokens }));
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
    return MARKETPLACE_STATS.item(s, { pool: q.address, networkId: network, token: tokens.get(network, s.floor_token ?? s.last_token) });
  }
}
