import type { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../../host/host-errors';
import {
  addr,
  asAddress,
  asBool,
  asBytes,
  asI128,
  asStruct,
  asU32,
  asU64,
  asVec,
  bool,
  bytes,
  dataKey,
  field,
  i128,
  struct,
  u32,
  u64,
  vec,
} from '../../host/scval';
import type { ContractEnv } from '../contract';

/**
 * Splitter V2 storage at d6291db (docs/contracts.md §3.4), layout checked against the snapshot
 * test_distribution_prevents_double_distribution: instance `["Config"]`, `["DistributionConfig"]`,
 * `["NextRoundId"]`, `["Commission"]`, `["ScheduleConfig"]`, `["PendingAdmin"]`, `["RequireSnapshot"]`;
 * persistent `["ActiveRounds"]`, `["Round", id]`, `["TotalAllocation", token]`, `["Claim", a, id]`,
 * `["SaleListing", seller]`.
 */
export const ERR = {
  NotInitialized: 1,
  AlreadyInitialized: 2,
  Unauthorized: 3,
  ContractLocked: 4,
  LowShareCount: 5,
  InvalidShareTotal: 6,
  NegativeShareAmount: 7,
  DuplicateShareholder: 8,
  ZeroTransferAmount: 9,
  TransferAmountAboveBalance: 10,
  TransferAmountAboveUnusedBalance: 11,
  RoundNotFound: 13,
  AlreadyClaimed: 14,
  NothingToClaim: 15,
  RoundNotFinalized: 16,
  Overflow: 20,
  InvalidCommissionRate: 22,
  ZeroWithdrawalAmount: 23,
  WithdrawalAmountAboveAllocation: 24,
  DistributionTooSoon: 25,
  ClaimsNotOpenYet: 26,
  RoundExpired: 27,
  ScheduleNotConfigured: 28,
  ScheduleNotEnabled: 29,
  ScheduleCompleted: 30,
  ScheduledDistributionNotDue: 31,
  InvalidScheduleConfig: 32,
  RoundNotExpired: 33,
  NothingToReclaim: 34,
  NoSharesToTransfer: 35,
  InsufficientSharesToTransfer: 36,
  CannotTransferToSelf: 37,
  InvalidShareAmount: 38,
  InvalidPrice: 39,
  NoSharesToSell: 40,
  NoActiveListing: 41,
  InsufficientSharesInListing: 42,
  CannotBuyOwnShares: 43,
  NotSnapshotRound: 45,
  ListingAlreadyExists: 46,
} as const;

/** d6291db default commission recipient ("the old GCYBJHXG… key is LOST"). */
export const V2_DEFAULT_COMMISSION_RECIPIENT = 'GC6XAWU7UNZ2LR6VYX7V2GDC24PZBYMVCBMJKGAFIXQZRNQPMVNOMOHV';

export interface Config {
  readonly admin: string;
  readonly mutable: boolean;
  readonly participationToken: string;
  readonly poolType: number;
  readonly totalShares: bigint;
}
const CONFIG = dataKey('Config');
export const isInitialized = (env: ContractEnv) => env.instance.has(CONFIG);
export function readConfig(env: ContractEnv): Config {
  const v = env.instance.get(CONFIG);
  if (!v) throw HostError.contract(ERR.NotInitialized);
  const s = asStruct(v);
  return {
    admin: asAddress(field(s, 'admin')),
    mutable: asBool(field(s, 'mutable')),
    participationToken: asAddress(field(s, 'participation_token')),
    poolType: asU32(field(s, 'pool_type')),
    totalShares: asI128(field(s, 'total_shares')),
  };
}
export const configToScVal = (c: Config): xdr.ScVal =>
  struct({
    admin: addr(c.admin),
    mutable: bool(c.mutable),
    participation_token: addr(c.participationToken),
    pool_type: u32(c.poolType),
    total_shares: i128(c.totalShares),
  });
export const writeConfig = (env: ContractEnv, c: Config) => env.instance.set(CONFIG, configToScVal(c));

export interface DistributionConfig {
  readonly minIntervalSeconds: bigint;
  readonly claimDelaySeconds: bigint;
  readonly roundExpirySeconds: bigint;
  readonly lastDistributionTime: bigint;
}
const DIST_CONFIG = dataKey('DistributionConfig');
export function readDistributionConfig(env: ContractEnv): DistributionConfig {
  const v = env.instance.get(DIST_CONFIG);
  if (!v) return { minIntervalSeconds: 43_200n, claimDelaySeconds: 0n, roundExpirySeconds: 31_536_000n, lastDistributionTime: 0n };
  const s = asStruct(v);
  return {
    minIntervalSeconds: asU64(field(s, 'min_interval_seconds')),
    claimDelaySeconds: asU64(field(s, 'claim_delay_seconds')),
    roundExpirySeconds: asU64(field(s, 'round_expiry_seconds')),
    lastDistributionTime: asU64(field(s, 'last_distribution_time')),
  };
}
export const distributionConfigToScVal = (c: DistributionConfig): xdr.ScVal =>
  struct({
    min_interval_seconds: u64(c.minIntervalSeconds),
    claim_delay_seconds: u64(c.claimDelaySeconds),
    round_expiry_seconds: u64(c.roundExpirySeconds),
    last_distribution_time: u64(c.lastDistributionTime),
  });
export const writeDistributionConfig = (env: ContractEnv, c: DistributionConfig) => env.instance.set(DIST_CONFIG, distributionConfigToScVal(c));

export interface Round {
  readonly id: bigint;
  readonly token: string;
  readonly totalAmount: bigint;
  readonly totalSupplySnapshot: bigint;
  readonly createdAt: bigint;
  readonly claimableFrom: bigint;
  readonly expiresAt: bigint;
  readonly isFinalized: boolean;
  readonly totalClaimed: bigint;
  readonly snapshotRoot: Uint8Array;
}
const roundKey = (id: bigint) => dataKey('Round', u64(id));
export const roundToScVal = (r: Round): xdr.ScVal =>
  struct({
    id: u64(r.id),
    token: addr(r.token),
    total_amount: i128(r.totalAmount),
    total_supply_snapshot: i128(r.totalSupplySnapshot),
    created_at: u64(r.createdAt),
    claimable_from: u64(r.claimableFrom),
    expires_at: u64(r.expiresAt),
    is_finalized: bool(r.isFinalized),
    total_claimed: i128(r.totalClaimed),
    snapshot_root: bytes(r.snapshotRoot),
  });
export function readRound(env: ContractEnv, id: bigint): Round {
  const v = env.persistent.get(roundKey(id));
  if (!v) throw HostError.contract(ERR.RoundNotFound);
  const s = asStruct(v);
  return {
    id: asU64(field(s, 'id')),
    token: asAddress(field(s, 'token')),
    totalAmount: asI128(field(s, 'total_amount')),
    totalSupplySnapshot: asI128(field(s, 'total_supply_snapshot')),
    createdAt: asU64(field(s, 'created_at')),
    claimableFrom: asU64(field(s, 'claimable_from')),
    expiresAt: asU64(field(s, 'expires_at')),
    isFinalized: asBool(field(s, 'is_finalized')),
    totalClaimed: asI128(field(s, 'total_claimed')),
    snapshotRoot: asBytes(field(s, 'snapshot_root')),
  };
}
export const writeRound = (env: ContractEnv, r: Round) => env.persistent.set(roundKey(r.id), roundToScVal(r));
export const isSnapshotRound = (r: Round) => r.snapshotRoot.some((b) => b !== 0);

const NEXT_ROUND = dataKey('NextRoundId');
export const readNextRoundId = (env: ContractEnv) => {
  const v = env.instance.get(NEXT_ROUND);
  return v ? asU64(v) : 0n;
};
export const writeNextRoundId = (env: ContractEnv, n: bigint) => env.instance.set(NEXT_ROUND, u64(n));

const ACTIVE_ROUNDS = dataKey('ActiveRounds');
export const readActiveRounds = (env: ContractEnv): bigint[] => {
  const v = env.persistent.get(ACTIVE_ROUNDS);
  return v ? asVec(v).map((x) => asU64(x)) : [];
};
export const writeActiveRounds = (env: ContractEnv, ids: readonly bigint[]) => env.persistent.set(ACTIVE_ROUNDS, vec(ids.map(u64)));

export { readTotalAllocation, reduceTotalAllocation, writeTotalAllocation } from '../shared/total-allocation';

const claimKey = (a: string, id: bigint) => dataKey('Claim', addr(a), u64(id));
export const hasClaim = (env: ContractEnv, a: string, id: bigint) => env.persistent.has(claimKey(a, id));
export const writeClaim = (env: ContractEnv, a: string, id: bigint, amount: bigint) =>
  env.persistent.set(claimKey(a, id), struct({ round_id: u64(id), shareholder: addr(a), amount: i128(amount), claimed_at: u64(env.timestamp) }));

const REQUIRE_SNAPSHOT = dataKey('RequireSnapshot');
export const readRequireSnapshot = (env: ContractEnv) => {
  const v = env.instance.get(REQUIRE_SNAPSHOT);
  return v ? asBool(v) : false;
};
export const writeRequireSnapshot = (env: ContractEnv, b: boolean) => env.instance.set(REQUIRE_SNAPSHOT, bool(b));

const PENDING_ADMIN = dataKey('PendingAdmin');
export const readPendingAdmin = (env: ContractEnv) => {
  const v = env.instance.get(PENDING_ADMIN);
  return v ? asAddress(v) : undefined;
};
export const writePendingAdmin = (env: ContractEnv, a: string) => env.instance.set(PENDING_ADMIN, addr(a));
export const clearPendingAdmin = (env: ContractEnv) => env.instance.remove(PENDING_ADMIN);

export interface Schedule {
  readonly enabled: boolean;
  readonly firstDistributionTime: bigint;
  readonly intervalSeconds: bigint;
  readonly totalDistributions: number;
  readonly completedDistributions: number;
}
const SCHEDULE = dataKey('ScheduleConfig');
export const scheduleToScVal = (s: Schedule) =>
  struct({
    enabled: bool(s.enabled),
    first_distribution_time: u64(s.firstDistributionTime),
    interval_seconds: u64(s.intervalSeconds),
    total_distributions: u32(s.totalDistributions),
    completed_distributions: u32(s.completedDistributions),
  });
export function readSchedule(env: ContractEnv): Schedule | undefined {
  const v = env.instance.get(SCHEDULE);
  if (!v) return undefined;
  const s = asStruct(v);
  return {
    enabled: asBool(field(s, 'enabled')),
    firstDistributionTime: asU64(field(s, 'first_distribution_time')),
    intervalSeconds: asU64(field(s, 'interval_seconds')),
    totalDistributions: asU32(field(s, 'total_distributions')),
    completedDistributions: asU32(field(s, 'completed_distributions')),
  };
}
export const writeSchedule = (env: ContractEnv, s: Schedule) => env.instance.set(SCHEDULE, scheduleToScVal(s));
