import type { ReadModelReader } from '@dob/read-models';
import type { ListingInfo, ListingLookup } from '../ports/listing-lookup.port';
import type { PoolInfo, PoolLookup } from '../ports/pool-lookup.port';

/** Listings from the marketplace read model (through whichever store serves it), with the pool's splitter version. */
export class ReadModelListingLookup implements ListingLookup {
  constructor(private readonly reader: Pick<ReadModelReader, 'listing'>) {}

  async findBySaleAddress(saleAddress: string): Promise<ListingInfo | null> {
    const r = await this.reader.listing(saleAddress);
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
  constructor(private readonly reader: Pick<ReadModelReader, 'campaignInfo' | 'poolInfo'>) {}

  async find(networkId: number, address: string): Promise<PoolInfo | null> {
    const c = await this.reader.campaignInfo(networkId, address);
    if (c) return { kind: 'crowdfunding', networkId, address, name: c.name, paymentToken: c.payment_token };
    const p = await this.reader.poolInfo(networkId, address);
    return p ? { kind: 'splitter', networkId, address, name: p.name, poolVersion: p.pool_version } : null;
  }
}
