import { HostError } from '../../host/host-errors';
import { addr, bool, i128, sym, vec } from '../../host/scval';
import type { ContractEnv } from '../contract';
import { checked } from '../shared/checked';
import { commissionOf, readCommission } from '../shared/commission';
import { tokenClient } from '../shared/token-client';
import { listingToScVal, readListing, removeListing, writeListing } from '../splitter-v1/storage';
import { ERR, readConfig, V2_DEFAULT_COMMISSION_RECIPIENT } from './storage';

/**
 * V2 escrowed marketplace (52adee1+, CEI fix 898e65c): listing moves the seller's participation tokens into the
 * splitter; buy pays seller (total − buy commission) and commission recipient, then releases escrow to the
 * buyer; cancel returns the escrow. Listings use the V1 SaleListingDataKey layout and `["ActiveListings"]`.
 */
export { listingToScVal, readListing };

export function listShares(env: ContractEnv, seller: string, amount: bigint, price: bigint, paymentToken: string): void {
  env.requireAuth(seller);
  const cfg = readConfig(env);
  if (amount <= 0n) throw HostError.contract(ERR.InvalidShareAmount);
  if (price <= 0n) throw HostError.contract(ERR.InvalidPrice);
  if (readListing(env, seller)) throw HostError.contract(ERR.ListingAlreadyExists);
  const pt = tokenClient(env, cfg.participationToken);
  if (pt.balance(seller) < amount) throw HostError.contract(ERR.NoSharesToSell);
  pt.transfer(seller, env.contractId, amount);
  writeListing(env, { seller, sharesForSale: amount, pricePerShare: price, paymentToken });
  env.emit([sym('listed'), addr(seller)], vec([i128(amount), i128(price), addr(paymentToken)]));
}

export function cancelListing(env: ContractEnv, seller: string): void {
  env.requireAuth(seller);
  const cfg = readConfig(env);
  const listing = readListing(env, seller);
  if (!listing) throw HostError.contract(ERR.NoActiveListing);
  removeListing(env, seller);
  tokenClient(env, cfg.participationToken).transfer(env.contractId, seller, listing.sharesForSale);
  env.emit([sym('canceled'), addr(seller)], bool(true));
}

export function buyShares(env: ContractEnv, buyer: string, seller: string, amount: bigint): void {
  env.requireAuth(buyer);
  const cfg = readConfig(env);
  if (amount <= 0n) throw HostError.contract(ERR.InvalidShareAmount);
  if (buyer === seller) throw HostError.contract(ERR.CannotBuyOwnShares);
  const listing = readListing(env, seller);
  if (!listing) throw HostError.contract(ERR.NoActiveListing);
  if (listing.sharesForSale < amount) throw HostError.contract(ERR.InsufficientSharesInListing);
  const total = checked(amount * listing.pricePerShare, ERR.Overflow);
  const c = readCommission(env, V2_DEFAULT_COMMISSION_RECIPIENT);
  const commission = commissionOf(total, c.buyRateBps);
  // checks-effects-interactions: listing updated before any transfer
  const remaining = listing.sharesForSale - amount;
  if (remaining === 0n) removeListing(env, seller);
  else writeListing(env, { ...listing, sharesForSale: remaining });
  const pay = tokenClient(env, listing.paymentToken);
  pay.transfer(buyer, seller, total - commission);
  if (commission > 0n) pay.transfer(buyer, c.recipient, commission);
  tokenClient(env, cfg.participationToken).transfer(env.contractId, buyer, amount);
  env.emit([sym('sold'), addr(seller), addr(buyer)], vec([i128(amount), i128(total), addr(listing.paymentToken)]));
}
