import type { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../../host/host-errors';
import { addr, asAddress, asI128, asStruct, asU32, asU64, dataKey, field, i128, struct, u32, u64 } from '../../host/scval';
import type { ContractEnv } from '../contract';

/**
 * crowdfunding_v1 storage at cf-v0.3.0 (docs/contracts.md §4.5): instance `["Config"]` CrowdfundConfig,
 * `["TotalRaised"]` i128, `["SplitterAddress"]`, `["PendingSplitter"]`, `["ActivationEta"]` u64;
 * persistent `["Contribution", investor]` i128 shares (kept at 0 after refund / opt-out, as the fixtures show).
 */
export const ERR = {
  NotInitialized: 1,
  AlreadyInitialized: 2,
  CampaignNotActive: 4,
  CampaignAlreadyFinalized: 5,
  DeadlineNotReached: 6,
  CampaignNotSucceeded: 7,
  CampaignNotFailed: 8,
  CampaignAlreadyActivated: 9,
  InvalidSharesAmount: 10,
  HardCapReached: 11,
  NothingToRefund: 12,
  InvalidPrice: 13,
  InvalidCap: 14,
  InvalidDeadline: 15,
  Overflow: 16,
  NoPendingActivation: 17,
  ActivationTimelockPending: 18,
  SplitterMismatch: 19,
  InvalidSplitter: 20,
  ActivationWindowExpired: 21,
  ActivationWindowStillOpen: 22,
  InvalidPayoutMode: 24,
} as const;

export const STATUS = { Fundraising: 0, Succeeded: 1, Failed: 2, Activated: 3 } as const;
export const PAYOUT = { Escrow: 0, DirectToOwner: 1 } as const;
export const MAX_SHARES = 1_000_000n;
export const ACTIVATION_TIMELOCK_SECONDS = 0n;
export const ACTIVATION_DEADLINE_SECONDS = 7_776_000n;

export interface CrowdfundConfig {
  readonly admin: string;
  readonly paymentToken: string;
  readonly pricePerShare: bigint;
  readonly softCapShares: bigint;
  readonly hardCapShares: bigint;
  readonly deadline: bigint;
  readonly status: number;
  readonly totalSharesSold: bigint;
  readonly payoutMode: number;
}

const CONFIG = dataKey('Config');
const TOTAL_RAISED = dataKey('TotalRaised');
const SPLITTER = dataKey('SplitterAddress');
const PENDING_SPLITTER = dataKey('PendingSplitter');
const ETA = dataKey('ActivationEta');

export const isInitialized = (env: ContractEnv): boolean => env.instance.has(CONFIG);

export function readConfig(env: ContractEnv): CrowdfundConfig {
  const v = env.instance.get(CONFIG);
  if (!v) throw HostError.contract(ERR.NotInitialized);
  const s = asStruct(v);
  return {
    admin: asAddress(field(s, 'admin')),
    paymentToken: asAddress(field(s, 'payment_token')),
    pricePerShare: asI128(field(s, 'price_per_share')),
    softCapShares: asI128(field(s, 'soft_cap_shares')),
    hardCapShares: asI128(field(s, 'hard_cap_shares')),
    deadline: asU64(field(s, 'deadline')),
    status: asU32(field(s, 'status')),
    totalSharesSold: asI128(field(s, 'total_shares_sold')),
    payoutMode: asU32(field(s, 'payout_mode')),
  };
}

export const configToScVal = (c: CrowdfundConfig): xdr.ScVal =>
  struct({
    admin: addr(c.admin),
    payment_token: addr(c.paymentToken),
    price_per_share: i128(c.pricePerShare),
    soft_cap_shares: i128(c.softCapShares),
    hard_cap_shares: i128(c.hardCapShares),
    deadline: u64(c.deadline),
    status: u32(c.status),
    total_shares_sold: i128(c.totalSharesSold),
    payout_mode: u32(c.payoutMode),
  });

export const writeConfig = (env: ContractEnv, c: CrowdfundConfig): void => env.instance.set(CONFIG, configToScVal(c));

export const readTotalRaised = (env: ContractEnv): bigint => {
  const v = env.instance.get(TOTAL_RAISED);
  return v ? asI128(v) : 0n;
};
export const writeTotalRaised = (env: ContractEnv, n: bigint): void => env.instance.set(TOTAL_RAISED, i128(n));

const contributionKey = (investor: string) => dataKey('Contribution', addr(investor));
export const readContribution = (env: ContractEnv, investor: string): bigint => {
  const v = env.persistent.get(contributionKey(investor));
  return v ? asI128(v) : 0n;
};
export const writeContribution = (env: ContractEnv, investor: string, n: bigint): void => env.persistent.set(contributionKey(investor), i128(n));

export function readPending(env: ContractEnv): { splitter: string; eta: bigint } | undefined {
  const s = env.instance.get(PENDING_SPLITTER);
  const e = env.instance.get(ETA);
  return s && e ? { splitter: asAddress(s), eta: asU64(e) } : undefined;
}
export function writePending(env: ContractEnv, splitter: string, eta: bigint): void {
  env.instance.set(PENDING_SPLITTER, addr(splitter));
  env.instance.set(ETA, u64(eta));
}
export function clearPending(env: ContractEnv): void {
  env.instance.remove(PENDING_SPLITTER);
  env.instance.remove(ETA);
}

export const readSplitter = (env: ContractEnv): string | undefined => {
  const v = env.instance.get(SPLITTER);
  return v ? asAddress(v) : undefined;
};
export const writeSplitter = (env: ContractEnv, s: string): void => env.instance.set(SPLITTER, addr(s));
