import { HostError } from '../../host/host-errors';
import { addr, bool, i128, sym, vec } from '../../host/scval';
import type { ContractEnv } from '../contract';
import { checked } from '../shared/checked';
import { commissionOf, readCommission } from '../shared/commission';
import { tokenClient } from '../shared/token-client';
import {
  ERR,
  readListing,
  readShare,
  readShareholders,
  removeListing,
  removeShare,
  V1_DEFAULT_COMMISSION_RECIPIENT,
  writeListing,
  writeShare,
  writeShareholders,
} from './storage';

/**
 * V1 marketplace without escrow (docs/contracts.md §2.2): a listing only records intent; buy_shares moves the
 * buyer's payment (seller gets total − buy commission, the commission recipient the rest) and then the share
 * points. Faithful to D-1: the seller's current holding is not re-checked against the listing, a seller pushed
 * to ≤ 0 points is silently removed from the cap table.
 */
export function listSharesForSale(env: ContractEnv, seller: string, amount: bigint, price: bigint, paymentToken: string): void {
  env.requireAuth(seller);
  if (amount <= 0n) throw HostError.contract(ERR.InvalidShareAmount);
  if (price <= 0n) throw HostError.contract(ERR.InvalidPrice);
  const held = readShare(env, seller);
  if (held === undefined || held < amount) throw HostError.contract(ERR.NoSharesToSell);
  writeListing(env, { seller, sharesForSale: amount, pricePerShare: price, paymentToken });
  env.emit([sym('listed'), addr(seller)], vec([i128(amount), i128(price), addr(paymentToken)]));
}

export function cancelListing(env: ContractEnv, seller: string): void {
  env.requireAuth(seller);
  if (!readListing(env, seller)) throw HostError.contract(ERR.NoActiveListing);
  removeListing(env, seller);
  env.emit([sym('canceled'), addr(seller)], bool(true));
}

export function buyShares(env: ContractEnv, buyer: string, seller: string, amount: bigint): void {
  env.requireAuth(buyer);
  if (amount <= 0n) throw HostError.contract(ERR.InvalidShareAmount);
  if (buyer === seller) throw HostError.contract(ERR.CannotBuyOwnShares);
  const listing = readListing(env, seller);
  if (!listing) throw HostError.contract(ERR.NoActiveListing);
  if (listing.sharesForSale < amount) throw HostError.contract(ERR.InsufficientSharesInListing);
  const totalPrice = checked(amount * listing.pricePerShare, ERR.Overflow);
  const c = readCommission(env, V1_DEFAULT_COMMISSION_RECIPIENT);
  const commission = commissionOf(totalPrice, c.buyRateBps);
  const sellerShare = readShare(env, seller);
  if (sellerShare === undefined) throw HostError.contract(ERR.NoSharesToSell);

  const token = tokenClient(env, listing.paymentToken);
  token.transfer(buyer, seller, totalPrice - commission);
  if (commission > 0n) token.transfer(buyer, c.recipient, commission);

  let holders = readShareholders(env);
  const sellerLeft = sellerShare - amount;
  if (sellerLeft <= 0n) {
    removeShare(env, seller);
    holders = holders.filter((h) => h !== seller);
  } else {
    writeShare(env, seller, sellerLeft);
  }
  const buyerHeld = readShare(env, buyer);
  writeShare(env, buyer, checked((buyerHeld ?? 0n) + amount, ERR.Overflow));
  if (!holders.includes(buyer)) holders.push(buyer);
  writeShareholders(env, holders);

  const remaining = listing.sharesForSale - amount;
  if (remaining === 0n) removeListing(env, seller);
  else writeListing(env, { ...listing, sharesForSale: remaining });
  env.emit([sym('sold'), addr(seller), addr(buyer)], vec([i128(amount), i128(totalPrice), addr(listing.paymentToken)]));
}
