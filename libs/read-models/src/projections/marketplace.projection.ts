import type { DocOf, Fields, ProjectionDefinition, ProjectionState } from '@dob/projections';
import { saleAddress } from '@dob/domain';
import { byEventType, type Chain } from './event-handlers';

/**
 * Listings and sales. A seller has at most one live listing per pool (the contract keys listings by seller;
 * re-listing overwrites), so `sold`/`canceled` hit the seller's active listing in that pool. A partial buy lowers
 * shares_amount; the listing is `sold` when none remain. Every sale is kept for the rolling volume windows,
 * which are computed at query time (they depend on the clock).
 */
export const MARKETPLACE = 'marketplace';

export type ListingStatus = 'active' | 'sold' | 'cancelled';
/** The listing document, declared once: ListingDoc, the store's columns, ListingRow and the API's plain fields follow. */
export const LISTING_FIELDS = {
  sale_address: 'text',
  network_id: 'int',
  pool: 'text',
  seller: 'text',
  shares_listed: 'amount',
  shares_amount: 'amount',
  price_per_share: 'amount',
  payment_token: 'text',
  status: 'text',
  created_at: 'timestamp',
  chain_event_id: 'text',
  tx_hash: 'text',
  closed_at: 'timestamp?',
} as const satisfies Fields;

/** `status` is text in the stores, one of ListingStatus in the reducer and the rows. */
export type ListingDoc = Omit<DocOf<typeof LISTING_FIELDS>, 'status'> & { status: ListingStatus };

/**
 * The listing list's orders, described once: this projection indexes each (behind `status`), the SQL reader orders
 * by it and the MongoDB reader sorts by it; every order ends on sale_address (stored amounts compare numerically in
 * both stores).
 */
export const LISTING_ORDERS = {
  created_desc: ['created_at desc', 'chain_event_id desc'],
  created_asc: ['created_at asc', 'chain_event_id asc'],
  price_asc: ['price_per_share asc', 'created_at desc'],
  price_desc: ['price_per_share desc', 'created_at desc'],
} as const satisfies Record<string, readonly `${keyof typeof LISTING_FIELDS} ${'asc' | 'desc'}`[]>;
export type ListingSort = keyof typeof LISTING_ORDERS;
export const LISTING_SORTS = Object.keys(LISTING_ORDERS) as readonly ListingSort[];

/** The seller's active listings in the pool (at most one, but every match is treated alike). */
const activeListings = (s: ProjectionState, c: Chain, pool: string, seller: string) =>
  s.find<ListingDoc>('listings', { network_id: c.network_id, pool, seller, status: 'active' });

async function cancelActive(s: ProjectionState, c: Chain, pool: string, seller: string): Promise<void> {
  for (const l of await activeListings(s, c, pool, seller)) s.put('listings', { ...l, status: 'cancelled', closed_at: c.closed_at });
}

export const marketplaceProjection: ProjectionDefinition = {
  name: MARKETPLACE,
  // v2: indexes for the listing sorts. v3: a document reducer for both stores.
  version: 3,
  collections: {
    listings: {
      fields: LISTING_FIELDS,
      key: ['sale_address'],
      // One index per listing sort, in the exact order of marketplace-queries, behind the status filter every list
      // has by default (active): a page reads LIMIT index entries instead of sorting every listing.
      indexes: [
        { keys: ['network_id', 'pool', 'seller', 'status'], lookup: true }, // a seller's active listings in a pool
        ...Object.values(LISTING_ORDERS).map((order) => ({ keys: ['status', ...order, 'sale_address'] })),
        { keys: ['seller', 'status', 'created_at desc', 'chain_event_id desc', 'sale_address'] },
      ],
    },
    sales: {
      fields: {
        event_id: 'text',
        sale_address: 'text?',
        network_id: 'int',
        pool: 'text',
        seller: 'text',
        buyer: 'text',
        shares: 'amount',
        total_price: 'amount',
        payment_token: 'text',
        sold_at: 'timestamp',
        tx_hash: 'text',
      },
      key: ['event_id'],
      indexes: [{ keys: ['network_id', 'pool', 'sold_at'] }, { keys: ['sold_at'] }],
    },
  },
  ...byEventType({
    async ListingCreated(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      // V1 re-listing overwrites the seller's previous listing in the pool: the old one ends as cancelled.
      await cancelActive(s, c, d.pool, d.seller);
      const address = saleAddress(c.network_id, d.pool, d.seller, c.event_id);
      if (await s.get('listings', { sale_address: address })) return;
      s.put('listings', {
        sale_address: address,
        network_id: c.network_id,
        pool: d.pool,
        seller: d.seller,
        shares_listed: BigInt(d.shares_amount),
        shares_amount: BigInt(d.shares_amount),
        price_per_share: BigInt(d.price_per_share),
        payment_token: d.payment_token,
        status: 'active',
        created_at: c.closed_at,
        chain_event_id: c.event_id,
        tx_hash: c.tx_hash,
        closed_at: null,
      });
    },
    async ListingSold(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const sold = BigInt(d.shares_sold);
      const hit = await activeListings(s, c, d.pool, d.seller);
      for (const l of hit) {
        const left = l.shares_amount - sold;
        s.put('listings', { ...l, shares_amount: left > 0n ? left : 0n, status: left <= 0n ? 'sold' : 'active', closed_at: left <= 0n ? c.closed_at : null });
      }
      s.put('sales', {
        event_id: e.id,
        sale_address: hit[0]?.sale_address ?? null,
        network_id: c.network_id,
        pool: d.pool,
        seller: d.seller,
        buyer: d.buyer,
        shares: sold,
        total_price: BigInt(d.total_price),
        payment_token: d.payment_token,
        sold_at: c.closed_at,
        tx_hash: c.tx_hash,
      });
    },
    async ListingCancelled(s, e) {
      await cancelActive(s, e.data.chain, e.data.pool, e.data.seller);
    },
  }),
};
