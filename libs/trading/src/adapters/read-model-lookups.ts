import { V } from '@dob/read-models';
import type { SqlExecutor } from '@dob/sql';
import type { ListingInfo, ListingLookup } from '../ports/listing-lookup.port';
import type { PoolInfo, PoolLookup } from '../ports/pool-lookup.port';

/** Listings from the marketplace read model (views of libs/read-models), with the pool's splitter version. */
export class ReadModelListingLookup implements ListingLookup {
  constructor(private readonly db: SqlExecutor) {}

  async findBySaleAddress(saleAddress: string): Promise<ListingInfo | null> {
    const { rows } = await this.db.query<{
      sale_address: string; network_id: number; pool: string; seller: string; shares_amount: string; price_per_share: string;
      payment_token: string; status: ListingInfo['status']; pool_version: string | null;
    }>(
      `SELECT l.sale_address, l.network_id, l.pool, l.seller, l.shares_amount::text AS shares_amount,
              l.price_per_share::text AS price_per_share, l.payment_token, l.status, p.pool_version
         FROM ${V.listings} l LEFT JOIN ${V.pools} p ON p.network_id = l.network_id AND p.address = l.pool
        WHERE l.sale_address = $1`,
      [saleAddress],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      saleAddress: r.sale_address,
      networkId: Number(r.network_id),
      pool: r.pool,
      seller: r.seller,
      sharesAmount: BigInt(r.shares_amount),
      pricePerShare: BigInt(r.price_per_share),
      paymentToken: r.payment_token,
      status: r.status,
      poolVersion: r.pool_version,
    };
  }
}

/**
 * A pool or campaign address on a network: a crowdfunding contract (campaigns model) or a splitter pool (pools
 * model, initialised or registered). The campaign's name comes from the registry entry of the campaign contract
 * or of the splitter it activated, as the read API shows it.
 */
export class ReadModelPoolLookup implements PoolLookup {
  constructor(private readonly db: SqlExecutor) {}

  async find(networkId: number, address: string): Promise<PoolInfo | null> {
    const campaign = await this.db.query<{ payment_token: string; name: string | null }>(
      `SELECT c.payment_token, COALESCE(pc.name, ps.name) AS name
         FROM ${V.campaigns} c
         LEFT JOIN ${V.pools} pc ON pc.network_id = c.network_id AND pc.address = c.address
         LEFT JOIN ${V.pools} ps ON ps.network_id = c.network_id AND ps.address = c.splitter
        WHERE c.network_id = $1 AND c.address = $2`,
      [networkId, address],
    );
    const c = campaign.rows[0];
    if (c) return { kind: 'crowdfunding', networkId, address, name: c.name, paymentToken: c.payment_token };
    const pool = await this.db.query<{ name: string | null; pool_version: string | null }>(
      `SELECT name, pool_version FROM ${V.pools} WHERE network_id = $1 AND address = $2`,
      [networkId, address],
    );
    const p = pool.rows[0];
    return p ? { kind: 'splitter', networkId, address, name: p.name, poolVersion: p.pool_version } : null;
  }
}
