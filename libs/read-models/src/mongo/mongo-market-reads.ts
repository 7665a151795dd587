import type { Doc } from '@dob/projections';
import type { Document, Sort } from 'mongodb';
import type { CampaignDoc } from '../projections/campaigns.projection';
import { LISTING_FIELDS, LISTING_ORDERS, type ListingDoc } from '../projections/marketplace.projection';
import { documentRow } from './document-rows';
import type { PoolDoc } from '../projections/pools.projection';
import type { ListingFilter, ListingRow, ListingSort, ListingStatusFilter, MarketStatsRow, Slice, MarketReads } from '../queries/read-model-reader.port';
import type { Models, MongoReads } from './mongo-models';

const LISTINGS = ['marketplace', 'listings'] as const;
const POOLS = ['pools', 'pools'] as const;
const DAY_MS = 86_400_000;

// A listing order (marketplace.projection LISTING_ORDERS) in MongoDB terms (stored amounts are order-preserving strings), ending
// on sale_address; the marketplace projection has an index for each behind `status`.
function order(sort: ListingSort): Sort {
  const sortBy: Record<string, 1 | -1> = {};
  for (const key of LISTING_ORDERS[sort]) {
    const [field, direction] = key.split(' ');
    sortBy[field!] = direction === 'asc' ? 1 : -1;
  }
  return { ...sortBy, sale_address: 1 };
}

type SaleDoc = { network_id: number; pool: string; total_price: bigint; payment_token: string; sold_at: string; event_id: string };

/** Listings with their pool's name, ticker and version and their token's learned symbol (lookups, no $lookup). */
async function toListingRows(m: Models, listings: readonly ListingDoc[]): Promise<ListingRow[]> {
  const pools = await m.byKeys<PoolDoc>(
    ...POOLS,
    listings.map((l) => ({ network_id: l.network_id, address: l.pool })),
  );
  return Promise.all(
    listings.map(async (l) => {
      const p = pools.get(m.id(...POOLS, { network_id: l.network_id, address: l.pool }));
      return {
        ...documentRow(LISTING_FIELDS, l),
        status: l.status,
        pool_name: p?.name ?? null,
        pool_ticker: p?.ticker ?? null,
        pool_version: p?.pool_version ?? null,
        payment_token_symbol: await m.symbolOf(l.network_id, l.payment_token),
      };
    }),
  );
}

const byStatus = (status: ListingStatusFilter): Document => (status === 'all' ? {} : { status });
const compare = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** Each read takes the request's view of the serving collections first. */
export const mongoMarketReads: MongoReads<MarketReads> = {
  async listingPage(m: Models, filter: ListingFilter, sort: ListingSort, slice: Slice): Promise<{ rows: ListingRow[]; total: number }> {
    const where: Document = byStatus(filter.status);
    if (filter.networkId !== undefined) where.network_id = filter.networkId;
    if (filter.paymentTokens) where.payment_token = { $in: [...filter.paymentTokens] };
    if (filter.seller) where.seller = filter.seller;
    const [page, total] = await Promise.all([m.find<ListingDoc>(...LISTINGS, where, order(sort), slice), m.count(...LISTINGS, where)]);
    return { rows: await toListingRows(m, page), total };
  },

  async poolListings(m: Models, networkId: number, pool: string, status: ListingStatusFilter, sort: ListingSort): Promise<ListingRow[]> {
    return toListingRows(m, await m.find<ListingDoc>(...LISTINGS, { network_id: networkId, pool, ...byStatus(status) }, order(sort)));
  },

  async listing(m: Models, saleAddress: string): Promise<ListingRow | null> {
    const l = await m.get<ListingDoc>(...LISTINGS, { sale_address: saleAddress });
    return l ? (await toListingRows(m, [l]))[0]! : null;
  },

  /**
   * The same aggregates the SQL store computes, summed here with exact bigints (FerretDB's $group cannot sum
   * these order-preserving strings, and has no $min/$max accumulators).
   */
  async marketStats(m: Models, networkId: number, pool: string, now: Date): Promise<MarketStatsRow> {
    const [p, active, sales] = await Promise.all([
      m.get<PoolDoc>(...POOLS, { network_id: networkId, address: pool }),
      m.find<ListingDoc>(...LISTINGS, { network_id: networkId, pool, status: 'active' }, order('price_asc')),
      m.find<SaleDoc & Doc>('marketplace', 'sales', { network_id: networkId, pool }, { sold_at: -1, event_id: 1 }),
    ]);
    const since = (days: number) => sales.filter((s) => new Date(s.sold_at).getTime() > now.getTime() - days * DAY_MS).reduce((n, s) => n + s.total_price, 0n);
    const prices = active.map((l) => l.price_per_share).sort(compare);
    return {
      pool_name: p?.name ?? null,
      floor: prices.length ? prices[0]!.toString() : null,
      highest: prices.length ? prices.at(-1)!.toString() : null,
      active_listings: active.length,
      shares_listed: active.reduce((n, l) => n + l.shares_amount, 0n).toString(),
      floor_token: active[0]?.payment_token ?? null, // price asc, created_at desc, sale_address: the SQL floor_token order
      v24: since(1).toString(),
      v7: since(7).toString(),
      v30: since(30).toString(),
      total: sales.reduce((n, s) => n + s.total_price, 0n).toString(),
      sales: sales.length,
      last_token: sales[0]?.payment_token ?? null,
    };
  },

  async campaignInfo(m: Models, networkId: number, address: string): Promise<{ payment_token: string; name: string | null } | null> {
    const c = await m.get<CampaignDoc>('crowdfunding', 'campaigns', { network_id: networkId, address });
    if (!c) return null;
    const own = await m.get<PoolDoc>(...POOLS, { network_id: networkId, address });
    const splitter = own?.name == null && c.splitter ? await m.get<PoolDoc>(...POOLS, { network_id: networkId, address: c.splitter }) : null;
    return { payment_token: c.payment_token, name: own?.name ?? splitter?.name ?? null };
  },

  async poolInfo(m: Models, networkId: number, address: string): Promise<{ name: string | null; pool_version: string | null } | null> {
    const p = await m.get<PoolDoc>(...POOLS, { network_id: networkId, address });
    return p ? { name: p.name, pool_version: p.pool_version } : null;
  },
};
