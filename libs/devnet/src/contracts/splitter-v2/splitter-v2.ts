import type { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../../host/host-errors';
import { addr, asAddress, asBool, asI128, asStruct, asU32, asU64, bool, field, i128, option, sym, u32, u64, vec, voidVal } from '../../host/scval';
import { expectArgs, type ContractDefinition, type ContractEnv, type ContractFunction } from '../contract';
import { commissionToScVal, readCommission, setCommissionRate, setCommissionRecipient } from '../shared/commission';
import { checkShares, sharesFromScVal } from '../shared/shares';
import { tokenClient } from '../shared/token-client';
import { buyShares, cancelListing, listingToScVal, listShares, readListing } from './marketplace';
import { claim, claimableAmount, claimAll, createRound, isExpired, isOpen, reclaimExpired } from './rounds';
import {
  clearPendingAdmin,
  configToScVal,
  distributionConfigToScVal,
  ERR,
  isInitialized,
  readActiveRounds,
  readConfig,
  readDistributionConfig,
  readPendingAdmin,
  readRequireSnapshot,
  readRound,
  readSchedule,
  readTotalAllocation,
  roundToScVal,
  scheduleToScVal,
  V2_DEFAULT_COMMISSION_RECIPIENT,
  writeConfig,
  writeDistributionConfig,
  writePendingAdmin,
  writeRequireSnapshot,
  writeSchedule,
  type Config,
} from './storage';

/**
 * Splitter V2 (`soro-splitter-v2` 2.2.0, post-audit d6291db): shares are participation-token balances, lazy
 * claimable rounds, schedule, escrowed marketplace, two-step admin transfer (docs/contracts.md §3).
 * Not reproduced: Merkle snapshot rounds (create_distribution_snapshot / claim_with_proof) and upgrade.
 */
const MIN_CLAIM_WINDOW = 2_592_000n;
const POOL_TYPES = 4;

function adminAuth(env: ContractEnv): Config {
  const c = readConfig(env);
  env.requireAuth(c.admin);
  return c;
}

function init(env: ContractEnv, args: readonly xdr.ScVal[], poolType: number): xdr.ScVal {
  const admin = asAddress(args[0]);
  const shares = sharesFromScVal(args[1]);
  const mutable = asBool(args[2]);
  const pt = asAddress(args[3]);
  if (isInitialized(env)) throw HostError.contract(ERR.AlreadyInitialized);
  if (poolType >= POOL_TYPES) throw HostError.valueUnexpectedType('PoolType');
  const total = checkShares(shares, {
    lowShareCount: ERR.LowShareCount,
    negativeShare: ERR.NegativeShareAmount,
    duplicate: ERR.DuplicateShareholder,
    invalidTotal: ERR.InvalidShareTotal,
    total: 'positive',
  });
  writeConfig(env, { admin, mutable, participationToken: pt, poolType, totalShares: total });
  for (const s of shares) if (s.share > 0n) env.invoke(pt, 'mint', [addr(s.shareholder), i128(s.share)]);
  env.emit([sym('init'), addr(admin)], vec([addr(pt), u32(shares.length), bool(mutable), u32(poolType)]));
  return voidVal();
}

function scheduledNext(s: { firstDistributionTime: bigint; intervalSeconds: bigint; completedDistributions: number }) {
  return s.firstDistributionTime + s.intervalSeconds * BigInt(s.completedDistributions);
}

const fns: Record<string, ContractFunction> = {
  init(env, args) {
    expectArgs(args, 4);
    return init(env, args, 0);
  },
  init_with_type(env, args) {
    expectArgs(args, 5);
    return init(env, args, asU32(args[4]));
  },
  set_distribution_config(env, args) {
    expectArgs(args, 1);
    const s = asStruct(args[0]);
    const minInterval = asU64(field(s, 'min_interval_seconds'));
    const delay = asU64(field(s, 'claim_delay_seconds'));
    const expiry = asU64(field(s, 'round_expiry_seconds'));
    adminAuth(env);
    if (expiry <= delay || expiry - delay < MIN_CLAIM_WINDOW) throw HostError.contract(ERR.InvalidScheduleConfig);
    const prev = readDistributionConfig(env);
    writeDistributionConfig(env, {
      minIntervalSeconds: minInterval,
      claimDelaySeconds: delay,
      roundExpirySeconds: expiry,
      lastDistributionTime: prev.lastDistributionTime,
    });
    env.emit([sym('cfg_set')], vec([u64(minInterval), u64(delay), u64(expiry)]));
    return voidVal();
  },
  get_distribution_config(env, args) {
    expectArgs(args, 0);
    return distributionConfigToScVal(readDistributionConfig(env));
  },
  set_schedule(env, args) {
    expectArgs(args, 3);
    const first = asU64(args[0]);
    const interval = asU64(args[1]);
    const total = asU32(args[2]);
    adminAuth(env);
    if (interval === 0n || first < env.timestamp) throw HostError.contract(ERR.InvalidScheduleConfig);
    writeSchedule(env, { enabled: true, firstDistributionTime: first, intervalSeconds: interval, totalDistributions: total, completedDistributions: 0 });
    env.emit([sym('sched_set')], vec([u64(first), u64(interval), u32(total)]));
    return voidVal();
  },
  disable_schedule(env, args) {
    expectArgs(args, 0);
    adminAuth(env);
    const s = readSchedule(env);
    if (s) {
      writeSchedule(env, { ...s, enabled: false });
      env.emit([sym('sched_off')], voidVal());
    }
    return voidVal();
  },
  get_schedule(env, args) {
    expectArgs(args, 0);
    const s = readSchedule(env);
    return option(s && scheduleToScVal(s));
  },
  get_next_scheduled_time(env, args) {
    expectArgs(args, 0);
    const s = readSchedule(env);
    return option(s && s.enabled ? u64(scheduledNext(s)) : undefined);
  },
  trigger_scheduled_distribution(env, args) {
    expectArgs(args, 1);
    const token = asAddress(args[0]);
    readConfig(env);
    const s = readSchedule(env);
    if (!s) throw HostError.contract(ERR.ScheduleNotConfigured);
    if (!s.enabled) throw HostError.contract(ERR.ScheduleNotEnabled);
    if (s.totalDistributions > 0 && s.completedDistributions >= s.totalDistributions) throw HostError.contract(ERR.ScheduleCompleted);
    if (env.timestamp < scheduledNext(s)) throw HostError.contract(ERR.ScheduledDistributionNotDue);
    const id = createRound(env, token);
    writeSchedule(env, { ...s, completedDistributions: s.completedDistributions + 1 });
    env.emit([sym('sched_tr'), addr(token)], vec([u64(id)]));
    return u64(id);
  },
  create_distribution(env, args) {
    expectArgs(args, 1);
    const token = asAddress(args[0]);
    adminAuth(env);
    if (readRequireSnapshot(env)) throw HostError.contract(ERR.NotSnapshotRound);
    return u64(createRound(env, token));
  },
  claim(env, args) {
    expectArgs(args, 2);
    const shareholder = asAddress(args[0]);
    const id = asU64(args[1]);
    env.requireAuth(shareholder);
    readConfig(env);
    return i128(claim(env, shareholder, id, readRequireSnapshot(env)));
  },
  claim_all(env, args) {
    expectArgs(args, 1);
    const shareholder = asAddress(args[0]);
    env.requireAuth(shareholder);
    readConfig(env);
    if (readRequireSnapshot(env)) throw HostError.contract(ERR.NotSnapshotRound);
    return i128(claimAll(env, shareholder));
  },
  reclaim_expired_round(env, args) {
    expectArgs(args, 1);
    const id = asU64(args[0]);
    const c = adminAuth(env);
    return i128(reclaimExpired(env, id, c.admin));
  },
  transfer_tokens(env, args) {
    expectArgs(args, 3);
    const token = asAddress(args[0]);
    const recipient = asAddress(args[1]);
    const amount = asI128(args[2]);
    const c = adminAuth(env);
    if (token === c.participationToken) throw HostError.contract(ERR.TransferAmountAboveUnusedBalance);
    if (amount <= 0n) throw HostError.contract(ERR.ZeroTransferAmount);
    const t = tokenClient(env, token);
    const balance = t.balance(env.contractId);
    if (amount > balance) throw HostError.contract(ERR.TransferAmountAboveBalance);
    if (amount > balance - readTotalAllocation(env, token)) throw HostError.contract(ERR.TransferAmountAboveUnusedBalance);
    t.transfer(env.contractId, recipient, amount);
    env.emit([sym('transfer'), addr(recipient)], vec([addr(token), i128(amount)]));
    return voidVal();
  },
  set_admin(env, args) {
    expectArgs(args, 1);
    const next = asAddress(args[0]);
    const c = adminAuth(env);
    writePendingAdmin(env, next);
    env.emit([sym('admin_proposed'), addr(c.admin)], addr(next));
    return voidVal();
  },
  accept_admin(env, args) {
    expectArgs(args, 0);
    const c = readConfig(env);
    const pending = readPendingAdmin(env);
    if (!pending) throw HostError.contract(ERR.Unauthorized);
    env.requireAuth(pending);
    writeConfig(env, { ...c, admin: pending });
    clearPendingAdmin(env);
    env.emit([sym('set_admin'), addr(c.admin)], addr(pending));
    return voidVal();
  },
  cancel_admin_transfer(env, args) {
    expectArgs(args, 0);
    adminAuth(env);
    clearPendingAdmin(env);
    return voidVal();
  },
  lock_contract(env, args) {
    expectArgs(args, 0);
    const c = adminAuth(env);
    writeConfig(env, { ...c, mutable: false });
    env.emit([sym('locked')], bool(true));
    return voidVal();
  },
  set_require_snapshot(env, args) {
    expectArgs(args, 1);
    const v = asBool(args[0]);
    adminAuth(env);
    writeRequireSnapshot(env, v);
    return voidVal();
  },
  get_require_snapshot(env, args) {
    expectArgs(args, 0);
    return bool(readRequireSnapshot(env));
  },
  transfer_shares(env, args) {
    expectArgs(args, 3);
    const from = asAddress(args[0]);
    const to = asAddress(args[1]);
    const amount = asI128(args[2]);
    env.requireAuth(from);
    const c = readConfig(env);
    if (from === to) throw HostError.contract(ERR.CannotTransferToSelf);
    if (amount <= 0n) throw HostError.contract(ERR.InvalidShareAmount);
    const pt = tokenClient(env, c.participationToken);
    const held = pt.balance(from);
    if (held <= 0n) throw HostError.contract(ERR.NoSharesToTransfer);
    if (held < amount) throw HostError.contract(ERR.InsufficientSharesToTransfer);
    pt.transfer(from, to, amount);
    env.emit([sym('transfer'), addr(from), addr(to)], i128(amount));
    return voidVal();
  },
  list_shares_for_sale(env, args) {
    expectArgs(args, 4);
    listShares(env, asAddress(args[0]), asI128(args[1]), asI128(args[2]), asAddress(args[3]));
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
  update_shares(env, args) {
    expectArgs(args, 1);
    const shares = sharesFromScVal(args[0]);
    const c = adminAuth(env);
    if (!c.mutable) throw HostError.contract(ERR.ContractLocked);
    checkShares(shares, {
      lowShareCount: ERR.LowShareCount,
      negativeShare: ERR.NegativeShareAmount,
      duplicate: ERR.DuplicateShareholder,
      invalidTotal: ERR.InvalidShareTotal,
      total: c.totalShares,
    });
    const ptId = c.participationToken;
    if (asI128(env.invoke(ptId, 'total_supply', [])) !== c.totalShares) throw HostError.contract(ERR.InvalidShareTotal);
    const pt = tokenClient(env, ptId);
    // clawbacks first so the live supply never exceeds total_shares (S-2)
    const diffs = shares.map((s) => ({ ...s, diff: s.share - pt.balance(s.shareholder) }));
    for (const d of diffs) if (d.diff < 0n) env.invoke(ptId, 'clawback', [addr(d.shareholder), i128(-d.diff)]);
    for (const d of diffs) if (d.diff > 0n) env.invoke(ptId, 'mint', [addr(d.shareholder), i128(d.diff)]);
    env.emit([sym('shares')], u32(shares.length));
    return voidVal();
  },
  withdraw_allocation(env, args) {
    expectArgs(args, 3);
    const shareholder = asAddress(args[1]);
    const amount = asI128(args[2]);
    env.requireAuth(shareholder);
    readConfig(env);
    if (amount <= 0n) throw HostError.contract(ERR.ZeroWithdrawalAmount);
    throw HostError.contract(ERR.WithdrawalAmountAboveAllocation); // V2 logic never creates allocations
  },
  get_share(env, args) {
    expectArgs(args, 1);
    return i128(tokenClient(env, readConfig(env).participationToken).balance(asAddress(args[0])));
  },
  get_config(env, args) {
    expectArgs(args, 0);
    return configToScVal(readConfig(env));
  },
  get_round(env, args) {
    expectArgs(args, 1);
    return roundToScVal(readRound(env, asU64(args[0])));
  },
  get_active_rounds(env, args) {
    expectArgs(args, 0);
    return vec(readActiveRounds(env).map(u64));
  },
  get_claimable(env, args) {
    expectArgs(args, 2);
    return i128(claimableAmount(env, readRound(env, asU64(args[1])), asAddress(args[0])));
  },
  get_total_claimable(env, args) {
    expectArgs(args, 1);
    const who = asAddress(args[0]);
    let total = 0n;
    for (const id of readActiveRounds(env)) {
      const r = readRound(env, id);
      if (!isExpired(env, r)) total += claimableAmount(env, r, who);
    }
    return i128(total);
  },
  get_allocation(env, args) {
    expectArgs(args, 2);
    asAddress(args[0]);
    asAddress(args[1]);
    return i128(0n);
  },
  is_round_claimable(env, args) {
    expectArgs(args, 1);
    return bool(isOpen(env, readRound(env, asU64(args[0]))));
  },
  is_round_expired(env, args) {
    expectArgs(args, 1);
    return bool(isExpired(env, readRound(env, asU64(args[0]))));
  },
  get_unclaimed_amount(env, args) {
    expectArgs(args, 1);
    const r = readRound(env, asU64(args[0]));
    return i128(r.totalAmount - r.totalClaimed);
  },
  set_commission_recipient(env, args) {
    expectArgs(args, 1);
    setCommissionRecipient(env, V2_DEFAULT_COMMISSION_RECIPIENT, asAddress(args[0]));
    return voidVal();
  },
  set_buy_commission_rate(env, args) {
    expectArgs(args, 1);
    setCommissionRate(env, V2_DEFAULT_COMMISSION_RECIPIENT, 'buy', asI128(args[0]), ERR.InvalidCommissionRate);
    return voidVal();
  },
  set_distribution_commission_rate(env, args) {
    expectArgs(args, 1);
    setCommissionRate(env, V2_DEFAULT_COMMISSION_RECIPIENT, 'distribution', asI128(args[0]), ERR.InvalidCommissionRate);
    return voidVal();
  },
  get_commission_config(env, args) {
    expectArgs(args, 0);
    return commissionToScVal(readCommission(env, V2_DEFAULT_COMMISSION_RECIPIENT));
  },
};

export const splitterV2: ContractDefinition = { kind: 'splitter_v2', functions: fns };
