import { HostError } from '../../host/host-errors';
import { addr, i128, sym, u64, vec } from '../../host/scval';
import type { ContractEnv } from '../contract';
import { checked } from '../shared/checked';
import { commissionOf, readCommission } from '../shared/commission';
import { tokenClient } from '../shared/token-client';
import {
  ERR,
  hasClaim,
  isSnapshotRound,
  readActiveRounds,
  readConfig,
  readDistributionConfig,
  readNextRoundId,
  readRound,
  readTotalAllocation,
  reduceTotalAllocation,
  V2_DEFAULT_COMMISSION_RECIPIENT,
  writeActiveRounds,
  writeClaim,
  writeDistributionConfig,
  writeNextRoundId,
  writeRound,
  writeTotalAllocation,
  type Round,
} from './storage';

/**
 * Lazy distribution rounds (docs/contracts.md §3): a round freezes amount = (balance − TotalAllocation − commission)
 * and the pool's total_shares; each holder later claims floor(total_amount × PT balance / total_supply_snapshot)
 * inside [claimable_from, expires_at]; after expiry the admin reclaims what is left.
 */
export function createRound(env: ContractEnv, token: string): bigint {
  const cfg = readConfig(env);
  const dc = readDistributionConfig(env);
  if (dc.lastDistributionTime > 0n && env.timestamp < dc.lastDistributionTime + dc.minIntervalSeconds) {
    throw HostError.contract(ERR.DistributionTooSoon);
  }
  const t = tokenClient(env, token);
  const distributable = t.balance(env.contractId) - readTotalAllocation(env, token);
  if (distributable <= 0n) throw HostError.contract(ERR.NothingToClaim);
  const c = readCommission(env, V2_DEFAULT_COMMISSION_RECIPIENT);
  const commission = commissionOf(distributable, c.distributionRateBps);
  if (commission > 0n) {
    t.transfer(env.contractId, c.recipient, commission);
    env.emit([sym('dist_com'), addr(token)], vec([addr(c.recipient), i128(commission)]));
  }
  const amount = distributable - commission;
  const id = readNextRoundId(env);
  const round: Round = {
    id,
    token,
    totalAmount: amount,
    totalSupplySnapshot: cfg.totalShares,
    createdAt: env.timestamp,
    claimableFrom: env.timestamp + dc.claimDelaySeconds,
    expiresAt: env.timestamp + dc.roundExpirySeconds,
    isFinalized: true,
    totalClaimed: 0n,
    snapshotRoot: new Uint8Array(32),
  };
  writeRound(env, round);
  writeActiveRounds(env, [...readActiveRounds(env), id]);
  writeNextRoundId(env, id + 1n);
  writeTotalAllocation(env, token, readTotalAllocation(env, token) + amount);
  writeDistributionConfig(env, { ...dc, lastDistributionTime: env.timestamp });
  env.emit([sym('dist_new'), addr(token)], vec([u64(id), i128(amount), u64(round.claimableFrom), u64(round.expiresAt)]));
  return id;
}

export const isExpired = (env: ContractEnv, r: Round) => env.timestamp > r.expiresAt;
export const isOpen = (env: ContractEnv, r: Round) => env.timestamp >= r.claimableFrom && !isExpired(env, r);

export function claimableAmount(env: ContractEnv, r: Round, shareholder: string): bigint {
  if (isSnapshotRound(r) || hasClaim(env, shareholder, r.id) || r.totalSupplySnapshot <= 0n) return 0n;
  const balance = tokenClient(env, readConfig(env).participationToken).balance(shareholder);
  return checked(r.totalAmount * balance, ERR.Overflow) / r.totalSupplySnapshot;
}

/** Pays one round to a holder (checks already done); returns the amount. */
export function payClaim(env: ContractEnv, r: Round, shareholder: string, amount: bigint): void {
  tokenClient(env, r.token).transfer(env.contractId, shareholder, amount);
  writeClaim(env, shareholder, r.id, amount);
  writeRound(env, { ...r, totalClaimed: r.totalClaimed + amount });
  reduceTotalAllocation(env, r.token, amount);
  env.emit([sym('claimed'), addr(shareholder)], vec([u64(r.id), addr(r.token), i128(amount)]));
}

export function claim(env: ContractEnv, shareholder: string, id: bigint, requireSnapshot: boolean): bigint {
  const r = readRound(env, id);
  if (!r.isFinalized) throw HostError.contract(ERR.RoundNotFinalized);
  if (isSnapshotRound(r) || requireSnapshot) throw HostError.contract(ERR.NotSnapshotRound);
  if (env.timestamp < r.claimableFrom) throw HostError.contract(ERR.ClaimsNotOpenYet);
  if (isExpired(env, r)) throw HostError.contract(ERR.RoundExpired);
  if (hasClaim(env, shareholder, id)) throw HostError.contract(ERR.AlreadyClaimed);
  const amount = claimableAmount(env, r, shareholder);
  if (amount <= 0n) throw HostError.contract(ERR.NothingToClaim);
  payClaim(env, r, shareholder, amount);
  return amount;
}

export function claimAll(env: ContractEnv, shareholder: string): bigint {
  let total = 0n;
  for (const id of readActiveRounds(env)) {
    const r = readRound(env, id);
    if (!r.isFinalized || isSnapshotRound(r) || !isOpen(env, r)) continue;
    const amount = claimableAmount(env, r, shareholder);
    if (amount <= 0n) continue;
    payClaim(env, r, shareholder, amount);
    total += amount;
  }
  if (total === 0n) throw HostError.contract(ERR.NothingToClaim);
  return total;
}

export function reclaimExpired(env: ContractEnv, id: bigint, admin: string): bigint {
  const r = readRound(env, id);
  if (!isExpired(env, r)) throw HostError.contract(ERR.RoundNotExpired);
  const unclaimed = r.totalAmount - r.totalClaimed;
  if (unclaimed <= 0n) throw HostError.contract(ERR.NothingToReclaim);
  tokenClient(env, r.token).transfer(env.contractId, admin, unclaimed);
  // The round itself is left as it was (total_claimed unchanged), like reclaim.rs: only the reservation and
  // the active-round list change (test_reclaim_partial_claimed_round snapshot).
  reduceTotalAllocation(env, r.token, unclaimed);
  writeActiveRounds(
    env,
    readActiveRounds(env).filter((x) => x !== id),
  );
  env.emit([sym('reclaim'), addr(r.token)], vec([u64(id), i128(unclaimed)]));
  return unclaimed;
}
