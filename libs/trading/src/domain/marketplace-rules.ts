import { AppError } from '@dob/domain';
import type { ListingInfo } from '../ports/listing-lookup.port';

/** The listing as the contract holds it now (get_listing), or null when the seller has none. */
export interface ChainListing {
  readonly sharesForSale: bigint;
  readonly pricePerShare: bigint;
  readonly paymentToken: string;
}

/** A listing known to the read models on this network, else 404. */
export function requireListing(listing: ListingInfo | null, saleAddress: string, networkId: number): ListingInfo {
  if (!listing || listing.networkId !== networkId) throw AppError.notFound(`Listing ${saleAddress} not found on network ${networkId}`);
  return listing;
}

/**
 * Active in the read model AND on chain with the same terms, else 409: the read model may lag a sale or a V1
 * re-listing (which overwrites the seller's listing in place, docs/contracts.md §2.5).
 */
export function requireActive(listing: ListingInfo, onChain: ChainListing | null): ChainListing {
  if (listing.status !== 'active' || !onChain || onChain.sharesForSale <= 0n) {
    throw AppError.conflict(`Listing ${listing.saleAddress} is no longer active`, {
      listing_id: listing.saleAddress,
      status: listing.status === 'active' ? 'closed on chain' : listing.status,
    });
  }
  if (onChain.pricePerShare !== listing.pricePerShare || onChain.paymentToken !== listing.paymentToken) {
    throw AppError.conflict(`Listing ${listing.saleAddress} was replaced by the seller with new terms`, { listing_id: listing.saleAddress });
  }
  return onChain;
}

/** Shares to buy: all available by default; positive; not above what is listed; never one's own listing. */
export function sharesToBuy(listing: ListingInfo, onChain: ChainListing, buyer: string, amount: number | undefined): bigint {
  if (listing.seller === buyer) throw AppError.validation('Cannot buy your own listing', { fields: { listing_id: 'listing belongs to the buyer' } });
  if (amount === undefined) return onChain.sharesForSale;
  const shares = BigInt(amount);
  if (shares <= 0n) throw AppError.validation('amount must be a positive number of shares', { fields: { amount: 'must be greater than zero' } });
  if (shares > onChain.sharesForSale) {
    throw AppError.validation(`amount ${shares} exceeds the ${onChain.sharesForSale} shares available in listing ${listing.saleAddress}`, {
      fields: { amount: `at most ${onChain.sharesForSale}` },
      available_shares: Number(onChain.sharesForSale),
    });
  }
  return shares;
}

export function checkListTerms(shares: number, pricePerShare: bigint): void {
  if (!Number.isSafeInteger(shares) || shares <= 0)
    throw AppError.validation('shares_amount must be a positive integer', { fields: { shares_amount: 'must be greater than zero' } });
  if (pricePerShare <= 0n) throw AppError.validation('price_per_share must be greater than zero', { fields: { price_per_share: 'must be greater than zero' } });
}

/** Listing more shares than the seller holds on chain (get_share) is refused before building. */
export function checkHeldShares(held: bigint, shares: bigint): void {
  if (held < shares) {
    throw AppError.validation(`Insufficient shares: the wallet holds ${held} shares of this pool and cannot list ${shares}`, {
      fields: { shares_amount: `at most ${held}` },
      held_shares: Number(held),
    });
  }
}

export function requireSeller(listing: ListingInfo, wallet: string): void {
  if (listing.seller !== wallet)
    throw AppError.validation('Only the seller can cancel a listing', { fields: { listing_id: 'listing belongs to another wallet' } });
}
