import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { saleAddress } from '../sale-address';
import { applyByType, type Chain } from './apply-by-type';

/**
 * Listings and sales. A seller has at most one live listing per pool (the contract keys listings by seller;
 * re-listing overwrites), so `sold`/`canceled` hit the seller's active listing in that pool. A partial buy lowers
 * shares_amount; the listing is `sold` when none remain. Every sale is kept for the rolling volume windows,
 * which are computed at query time (they depend on the clock).
 */
export const MARKETPLACE = 'marketplace';

export const marketplaceProjection: ProjectionDefinition<SqlExecutor> = {
  name: MARKETPLACE,
  // v2: indexes for the listing sorts.
  version: 2,
  eventTypes: ['ListingCreated', 'ListingSold', 'ListingCancelled'],
  tables: ['listings', 'sales'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.listings} (
      sale_address     text        PRIMARY KEY,
      network_id       int         NOT NULL,
      pool             text        NOT NULL,
      seller           text        NOT NULL,
      shares_listed    numeric     NOT NULL,
      shares_amount    numeric     NOT NULL,
      price_per_share  numeric     NOT NULL,
      payment_token    text        NOT NULL,
      status           text        NOT NULL CHECK (status IN ('active', 'sold', 'cancelled')),
      created_at       timestamptz NOT NULL,
      chain_event_id   text        NOT NULL,
      tx_hash          text        NOT NULL,
      closed_at        timestamptz
    );
    CREATE INDEX ON ${t.listings} (network_id, pool, seller) WHERE status = 'active';
    -- One index per listing sort, in the exact ORDER BY of marketplace-queries, behind the status filter every list
    -- has by default (active): a page reads LIMIT index entries instead of sorting every listing.
    CREATE INDEX ON ${t.listings} (status, created_at DESC, chain_event_id DESC, sale_address);
    CREATE INDEX ON ${t.listings} (status, created_at ASC, chain_event_id ASC, sale_address);
    CREATE INDEX ON ${t.listings} (status, price_per_share ASC, created_at DESC, sale_address);
    CREATE INDEX ON ${t.listings} (status, price_per_share DESC, created_at DESC, sale_address);
    CREATE INDEX ON ${t.listings} (seller);
    CREATE TABLE ${t.sales} (
      event_id        text        PRIMARY KEY,
      sale_address    text,
      network_id      int         NOT NULL,
      pool            text        NOT NULL,
      seller          text        NOT NULL,
      buyer           text        NOT NULL,
      shares          numeric     NOT NULL,
      total_price     numeric     NOT NULL,
      payment_token   text        NOT NULL,
      sold_at         timestamptz NOT NULL,
      tx_hash         text        NOT NULL
    );
    CREATE INDEX ON ${t.sales} (network_id, pool, sold_at);`);
  },
  apply: applyByType({
    async ListingCreated(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      // V1 re-listing overwrites the seller's previous listing in the pool: the old one ends as cancelled.
      await tx.query(
        `UPDATE ${t.listings} SET status = 'cancelled', closed_at = $4
          WHERE network_id = $1 AND pool = $2 AND seller = $3 AND status = 'active'`,
        [c.network_id, d.pool, d.seller, c.closed_at],
      );
      await tx.query(
        `INSERT INTO ${t.listings} (sale_address, network_id, pool, seller, shares_listed, shares_amount, price_per_share,
                                    payment_token, status, created_at, chain_event_id, tx_hash)
         VALUES ($1, $2, $3, $4, $5::numeric, $5::numeric, $6::numeric, $7, 'active', $8, $9, $10)
         ON CONFLICT (sale_address) DO NOTHING`,
        [saleAddress(c.network_id, d.pool, d.seller, c.event_id), c.network_id, d.pool, d.seller, d.shares_amount, d.price_per_share, d.payment_token, c.closed_at, c.event_id, c.tx_hash],
      );
    },
    async ListingSold(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const { rows } = await tx.query<{ sale_address: string }>(
        `UPDATE ${t.listings}
            SET shares_amount = GREATEST(shares_amount - $4::numeric, 0),
                status = CASE WHEN shares_amount - $4::numeric <= 0 THEN 'sold' ELSE 'active' END,
                closed_at = CASE WHEN shares_amount - $4::numeric <= 0 THEN $5::timestamptz END
          WHERE network_id = $1 AND pool = $2 AND seller = $3 AND status = 'active'
          RETURNING sale_address`,
        [c.network_id, d.pool, d.seller, d.shares_sold, c.closed_at],
      );
      await tx.query(
        `INSERT INTO ${t.sales} (event_id, sale_address, network_id, pool, seller, buyer, shares, total_price, payment_token,
                                 sold_at, tx_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9, $10, $11) ON CONFLICT (event_id) DO NOTHING`,
        [e.id, rows[0]?.sale_address ?? null, c.network_id, d.pool, d.seller, d.buyer, d.shares_sold, d.total_price, d.payment_token, c.closed_at, c.tx_hash],
      );
    },
    async ListingCancelled(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `UPDATE ${t.listings} SET status = 'cancelled', closed_at = $4
          WHERE network_id = $1 AND pool = $2 AND seller = $3 AND status = 'active'`,
        [c.network_id, d.pool, d.seller, c.closed_at],
      );
    },
  }),
};
