import type { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../../host/host-errors';
import { addr, asAddress, asBool, asI128, asU32, bool, i128, option, sym, u32, vec, voidVal } from '../../host/scval';
import { expectArgs, type ContractDefinition, type ContractEnv, type ContractFunction } from '../contract';
import { commissionToScVal, readCommission, setCommissionRate, setCommissionRecipient } from '../shared/commission';
import { checkShares, sharesFromScVal, shareToScVal, type Share } from '../shared/shares';
import { tokenClient } from '../shared/token-client';
import { distributeTokens, finalizeDistribution, hasPending, MAX_DISTRIBUTE_BATCH, processDistribution, startDistribution } from './distribution';
import { buyShares, cancelListing, listSharesForSale } from './marketplace';
import {
  configToScVal,
  ERR,
  isInitialized,
  listingToScVal,
  readActiveListings,
  readAllocation,
  readConfig,
  readListing,
  readShare,
  readShareholders,
  readTotalAllocation,
  reduceTotalAllocation,
  removeAllocation,
  removeShare,
  V1_DEFAULT_COMMISSION_RECIPIENT,
  writeAllocation,
  writeConfig,
  writeShare,
  writeShareholders,
} from './storage';

/**
 * Splitter V1 (`soro-splitter`), V1.2 = ecfa003 … v1.3.0 tag, and the V1.3 additions (f963431 batch
 * distribution, 8c16989 set_admin) — functions, errors and events per docs/contracts.md §2.
 * Devnet note: V1.3 keeps the V1.2 storage layout (`["Shareholders"]` Vec) instead of the indexed
 * ShareholderAt/ShareholderCount layout, so `migrate` has nothing to do (#29).
 */

const V1_SHARE_CHECKS = {
  lowShareCount: ERR.LowShareCount,
  negativeShare: ERR.NegativeShareAmount,
  duplicate: ERR.DuplicateShareholder,
  invalidTotal: ERR.InvalidShareTotal,
  total: 10_000n,
} as const;

function admin(env: ContractEnv): string {
  const c = readConfig(env);
  env.requireAuth(c.admin);
  return c.admin;
}

function replaceShares(env: ContractEnv, shares: readonly Share[]): void {
  for (const old of readShareholders(env)) removeShare(env, old);
  for (const s of shares) writeShare(env, s.shareholder, s.share);
  writeShareholders(
    env,
    shares.map((s) => s.shareholder),
  );
}

function transferShares(env: ContractEnv, from: string, to: string, amount: bigint): void {
  env.requireAuth(from);
  readConfig(env);
  if (from === to) throw HostError.contract(ERR.CannotTransferToSelf);
  if (amount <= 0n) throw HostError.contract(ERR.InvalidShareAmount);
  const held = readShare(env, from);
  if (held === undefined) throw HostError.contract(ERR.NoSharesToTransfer);
  if (held < amount) throw HostError.contract(ERR.InsufficientSharesToTransfer);
  let holders = readShareholders(env);
  if (held === amount) {
    removeShare(env, from);
    holders = holders.filter((h) => h !== from);
  } else writeShare(env, from, held - amount);
  writeShare(env, to, (readShare(env, to) ?? 0n) + amount);
  if (!holders.includes(to)) holders.push(to);
  writeShareholders(env, holders);
  env.emit([sym('transfer'), addr(from), addr(to)], i128(amount));
}

const v12: Record<string, ContractFunction> = {
  init(env, args) {
    expectArgs(args, 3);
    const adminAddr = asAddress(args[0]);
    const shares = sharesFromScVal(args[1]);
    const mutable = asBool(args[2]);
    if (isInitialized(env)) throw HostError.contract(ERR.AlreadyInitialized);
    checkShares(shares, V1_SHARE_CHECKS);
    writeConfig(env, { admin: adminAddr, mutable });
    replaceShares(env, shares);
    env.emit([sym('init'), addr(adminAddr)], vec([u32(shares.length), bool(mutable)]));
    return voidVal();
  },
  transfer_tokens(env, args) {
    expectArgs(args, 3);
    const token = asAddress(args[0]);
    const recipient = asAddress(args[1]);
    const amount = asI128(args[2]);
    admin(env);
    if (amount <= 0n) throw HostError.contract(ERR.ZeroTransferAmount);
    const t = tokenClient(env, token);
    const balance = t.balance(env.contractId);
    if (amount > balance) throw HostError.contract(ERR.TransferAmountAboveBalance);
    if (amount > balance - readTotalAllocation(env, token)) throw HostError.contract(ERR.TransferAmountAboveUnusedBalance);
    t.transfer(env.contractId, recipient, amount);
    env.emit([sym('transfer'), addr(recipient)], vec([addr(token), i128(amount)]));
    return voidVal();
  },
  distribute_tokens(env, args) {
    expectArgs(args, 1);
    const token = asAddress(args[0]);
    admin(env);
    distributeTokens(env, token);
    return voidVal();
  },
  update_shares(env, args) {
    expectArgs(args, 1);
    const shares = sharesFromScVal(args[0]);
    admin(env);
    if (!readConfig(env).mutable) throw HostError.contract(ERR.ContractLocked);
    checkShares(shares, V1_SHARE_CHECKS);
    replaceShares(env, shares);
    env.emit([sym('shares')], u32(shares.length));
    return voidVal();
  },
  lock_contract(env, args) {
    expectArgs(args, 0);
    const a = admin(env);
    writeConfig(env, { admin: a, mutable: false });
    env.emit([sym('locked')], bool(true));
    return voidVal();
  },
  withdraw_allocation(env, args) {
    expectArgs(args, 3);
    const token = asAddress(args[0]);
    const shareholder = asAddress(args[1]);
    const amount = asI128(args[2]);
    env.requireAuth(shareholder);
    readConfig(env);
    if (amount === 0n) throw HostError.contract(ERR.ZeroWithdrawalAmount);
    const allocation = readAllocation(env, shareholder, token);
    if (amount > allocation) throw HostError.contract(ERR.WithdrawalAmountAboveAllocation);
    tokenClient(env, token).transfer(env.contractId, shareholder, amount);
    // withdraw_allocation.rs: a full withdrawal removes the entry, the total drops out at zero
    if (amount === allocation) removeAllocation(env, shareholder, token);
    else writeAllocation(env, shareholder, token, allocation - amount);
    reduceTotalAllocation(env, token, amount);
    env.emit([sym('withdraw'), addr(shareholder)], vec([addr(token), i128(amount)]));
    return voidVal();
  },
  transfer_shares(env, args) {
    expectArgs(args, 3);
    transferShares(env, asAddress(args[0]), asAddress(args[1]), asI128(args[2]));
    return voidVal();
  },
  get_share(env, args) {
    expectArgs(args, 1);
    const who = asAddress(args[0]);
    readConfig(env);
    const s = readShare(env, who);
    return option(s === undefined ? undefined : i128(s));
  },
  list_shares(env, args) {
    expectArgs(args, 0);
    readConfig(env);
    return vec(readShareholders(env).map((h) => shareToScVal({ shareholder: h, share: readShare(env, h) ?? 0n })));
  },
  get_config(env, args) {
    expectArgs(args, 0);
    return configToScVal(readConfig(env));
  },
  get_allocation(env, args) {
    expectArgs(args, 2);
    readConfig(env);
    return i128(readAllocation(env, asAddress(args[0]), asAddress(args[1])));
  },
  list_shares_for_sale(env, args) {
    expectArgs(args, 4);
    listSharesForSale(env, asAddress(args[0]), asI128(args[1]), asI128(args[2]), asAddress(args[3]));
    return voidVal();
  },
  cancel_listing(env, args) {
    expectArgs(args, 1);
    cancelListing(env, asAddress(args[0]));
    return voidVal();
  },
  buy_shares(env, args) {
    expectArgs(args, 3);
    buyShares(env, asAddress(args[0]), asAddress(args[1]), asI128(args[2]));
    return voidVal();
  },
  get_listing(env, args) {
    expectArgs(args, 1);
    const l = readListing(env, asAddress(args[0]));
    return option(l && listingToScVal(l));
  },
  list_all_sales(env, args) {
    expectArgs(args, 0);
    const out: xdr.ScVal[] = [];
    for (const seller of readActiveListings(env)) {
      const l = readListing(env, seller);
      if (l) out.push(listingToScVal(l));
    }
    return vec(out);
  },
  set_commission_recipient(env, args) {
    expectArgs(args, 1);
    setCommissionRecipient(env, V1_DEFAULT_COMMISSION_RECIPIENT, asAddress(args[0]));
    return voidVal();
  },
  set_buy_commission_rate(env, args) {
    expectArgs(args, 1);
    setCommissionRate(env, V1_DEFAULT_COMMISSION_RECIPIENT, 'buy', asI128(args[0]), ERR.InvalidCommissionRate);
    return voidVal();
  },
  set_distribution_commission_rate(env, args) {
    expectArgs(args, 1);
    setCommissionRate(env, V1_DEFAULT_COMMISSION_RECIPIENT, 'distribution', asI128(args[0]), ERR.InvalidCommissionRate);
    return voidVal();
  },
  get_commission_config(env, args) {
    expectArgs(args, 0);
    return commissionToScVal(readCommission(env, V1_DEFAULT_COMMISSION_RECIPIENT));
  },
};

const v13: Record<string, ContractFunction> = {
  ...v12,
  distribute_tokens(env, args) {
    expectArgs(args, 1);
    const token = asAddress(args[0]);
    admin(env);
    if (readShareholders(env).length > MAX_DISTRIBUTE_BATCH) throw HostError.contract(ERR.TooManyShareholders);
    if (hasPending(env)) throw HostError.contract(ERR.DistributionInProgress);
    distributeTokens(env, token);
    return voidVal();
  },
  start_distribution(env, args) {
    expectArgs(args, 1);
    const token = asAddress(args[0]);
    admin(env);
    return u32(startDistribution(env, token));
  },
  process_distribution(env, args) {
    expectArgs(args, 1);
    const batch = asU32(args[0]);
    admin(env);
    return bool(processDistribution(env, batch));
  },
  finalize_distribution(env, args) {
    expectArgs(args, 0);
    admin(env);
    finalizeDistribution(env);
    return voidVal();
  },
  get_shareholder_count(env, args) {
    expectArgs(args, 0);
    readConfig(env);
    return u32(readShareholders(env).length);
  },
  migrate(env, args) {
    expectArgs(args, 0);
    admin(env);
    throw HostError.contract(29); // MigrationNotNeeded: the devnet never had the legacy layout
  },
  set_admin(env, args) {
    expectArgs(args, 1);
    const newAdmin = asAddress(args[0]);
    const c = readConfig(env);
    env.requireAuth(c.admin);
    writeConfig(env, { ...c, admin: newAdmin });
    env.emit([sym('set_admin'), addr(c.admin)], addr(newAdmin));
    return voidVal();
  },
};

export const splitterV12: ContractDefinition = { kind: 'splitter_v1_2', functions: v12 };
export const splitterV13: ContractDefinition = { kind: 'splitter_v1_3', functions: v13 };
