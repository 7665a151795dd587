import type { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../../host/host-errors';
import { addr, asAddress, asBool, asI128, asStruct, asVec, bool, dataKey, field, i128, struct, vec } from '../../host/scval';
import type { ContractEnv } from '../contract';
import { shareToScVal } from '../shared/shares';

/**
 * Splitter V1 storage (DataKey V1.2, docs/contracts.md §2.5): instance `["Config"]` ConfigDataKey {admin, mutable},
 * `["Commission"]`; persistent `["Shareholders"]` Vec<Address>, `["Share", a]` ShareDataKey {shareholder, share}, `["TotalAllocation", token]`,
 * `["Allocation", a, token]`, `["SaleListing", seller]` SaleListingDataKey, `["ActiveListings"]` Vec<Address>.
 */
export const ERR = {
  NotInitialized: 1,
  AlreadyInitialized: 2,
  ContractLocked: 4,
  LowShareCount: 5,
  InvalidShareTotal: 6,
  ZeroTransferAmount: 7,
  TransferAmountAboveBalance: 8,
  TransferAmountAboveUnusedBalance: 9,
  ZeroWithdrawalAmount: 10,
  WithdrawalAmountAboveAllocation: 11,
  NoSharesToSell: 12,
  NoActiveListing: 13,
  InsufficientSharesInListing: 14,
  InvalidPrice: 15,
  InvalidShareAmount: 16,
  CannotBuyOwnShares: 17,
  NoSharesToTransfer: 18,
  InsufficientSharesToTransfer: 19,
  CannotTransferToSelf: 20,
  Overflow: 21,
  NegativeShareAmount: 22,
  DuplicateShareholder: 23,
  InvalidCommissionRate: 24,
  TooManyShareholders: 25,
  DistributionInProgress: 26,
  NoDistributionInProgress: 27,
  DistributionNotComplete: 28,
} as const;

/** Default commission recipient of every V1 version in the repo (docs/contracts.md §2.5). */
export const V1_DEFAULT_COMMISSION_RECIPIENT = 'GCYBJHXG4JRODEFRVXHFWDHRQQSEYYBM2P455ME3OGETCURTQJLZVX72';

export interface Config {
  readonly admin: string;
  readonly mutable: boolean;
}

const CONFIG = dataKey('Config');
const SHAREHOLDERS = dataKey('Shareholders');
const ACTIVE_LISTINGS = dataKey('ActiveListings');

export function readConfig(env: ContractEnv): Config {
  const v = env.instance.get(CONFIG);
  if (!v) throw HostError.contract(ERR.NotInitialized);
  const s = asStruct(v);
  return { admin: asAddress(field(s, 'admin')), mutable: asBool(field(s, 'mutable')) };
}
export const isInitialized = (env: ContractEnv): boolean => env.instance.has(CONFIG);
export const configToScVal = (c: Config): xdr.ScVal => struct({ admin: addr(c.admin), mutable: bool(c.mutable) });
export const writeConfig = (env: ContractEnv, c: Config): void => env.instance.set(CONFIG, configToScVal(c));

const addressList = (v: xdr.ScVal | undefined): string[] => (v ? asVec(v).map((a) => asAddress(a)) : []);
export const readShareholders = (env: ContractEnv): string[] => addressList(env.persistent.get(SHAREHOLDERS));
export const writeShareholders = (env: ContractEnv, list: readonly string[]): void => env.persistent.set(SHAREHOLDERS, vec(list.map(addr)));

const shareKey = (a: string) => dataKey('Share', addr(a));
/**
 * The entry holds the whole ShareDataKey struct, as storage.rs `save_share` writes it (the V1.2
 * happy_path_partial_purchase snapshot); a bare i128 is still read, for devnet chains persisted before.
 */
export function readShare(env: ContractEnv, a: string): bigint | undefined {
  const v = env.persistent.get(shareKey(a));
  if (!v) return undefined;
  return v.type === 'scvMap' ? asI128(field(asStruct(v), 'share')) : asI128(v);
}
export const writeShare = (env: ContractEnv, a: string, share: bigint): void => env.persistent.set(shareKey(a), shareToScVal({ shareholder: a, share }));
export const removeShare = (env: ContractEnv, a: string): void => env.persistent.remove(shareKey(a));

export { readTotalAllocation, reduceTotalAllocation, writeTotalAllocation } from '../shared/total-allocation';

const allocationKey = (a: string, token: string) => dataKey('Allocation', addr(a), addr(token));
export const readAllocation = (env: ContractEnv, a: string, token: string): bigint => {
  const v = env.persistent.get(allocationKey(a, token));
  return v ? asI128(v) : 0n;
};
export const writeAllocation = (env: ContractEnv, a: string, token: string, n: bigint): void => env.persistent.set(allocationKey(a, token), i128(n));
export const removeAllocation = (env: ContractEnv, a: string, token: string): void => env.persistent.remove(allocationKey(a, token));

/** `SaleListingDataKey {seller, shares_for_sale, price_per_share, payment_token}`. */
export interface Listing {
  readonly seller: string;
  readonly sharesForSale: bigint;
  readonly pricePerShare: bigint;
  readonly paymentToken: string;
}
const listingKey = (seller: string) => dataKey('SaleListing', addr(seller));
export const listingToScVal = (l: Listing): xdr.ScVal =>
  struct({
    seller: addr(l.seller),
    shares_for_sale: i128(l.sharesForSale),
    price_per_share: i128(l.pricePerShare),
    payment_token: addr(l.paymentToken),
  });
export function readListing(env: ContractEnv, seller: string): Listing | undefined {
  const v = env.persistent.get(listingKey(seller));
  if (!v) return undefined;
  const s = asStruct(v);
  return {
    seller: asAddress(field(s, 'seller')),
    sharesForSale: asI128(field(s, 'shares_for_sale')),
    pricePerShare: asI128(field(s, 'price_per_share')),
    paymentToken: asAddress(field(s, 'payment_token')),
  };
}
export function writeListing(env: ContractEnv, l: Listing): void {
  env.persistent.set(listingKey(l.seller), listingToScVal(l));
  const active = readActiveListings(env);
  if (!active.includes(l.seller)) writeActiveListings(env, [...active, l.seller]);
}
export function removeListing(env: ContractEnv, seller: string): void {
  env.persistent.remove(listingKey(seller));
  writeActiveListings(
    env,
    readActiveListings(env).filter((s) => s !== seller),
  );
}
export const readActiveListings = (env: ContractEnv): string[] => addressList(env.persistent.get(ACTIVE_LISTINGS));
const writeActiveListings = (env: ContractEnv, list: readonly string[]): void => env.persistent.set(ACTIVE_LISTINGS, vec(list.map(addr)));
