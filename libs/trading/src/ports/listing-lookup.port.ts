/** A marketplace listing as the read models know it, resolved from its `sale_address`. */
export interface ListingInfo {
  readonly saleAddress: string;
  readonly networkId: number;
  readonly pool: string;
  readonly seller: string;
  /** Shares still for sale (base units of the pool's share count). */
  readonly sharesAmount: bigint;
  /** Payment-token base units per share. */
  readonly pricePerShare: bigint;
  readonly paymentToken: string;
  readonly status: 'active' | 'sold' | 'cancelled';
  /** '1' (no escrow) or '2' (escrowed), from the pool's `init`; null when the pool's init was not seen. */
  readonly poolVersion: string | null;
}

export interface ListingLookup {
  /** The listing with this sale_address, in any status, or null. */
  findBySaleAddress(saleAddress: string): Promise<ListingInfo | null>;
}
