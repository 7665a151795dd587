/**
 * Contract error names per contract family, from docs/contracts.md §2.3 (splitter V1), §3.2 (splitter V2) and §4.3
 * (crowdfunding, build cf-v0.3.0 = CF-g). The same number means different things per version (V1 #7 =
 * ZeroTransferAmount, V2 #7 = NegativeShareAmount), so a code is only named together with its contract family.
 */
export type ContractFamily = 'splitter_v1' | 'splitter_v2' | 'crowdfunding';

const SPLITTER_V1 = [
  'NotInitialized',
  'AlreadyInitialized',
  'Unauthorized',
  'ContractLocked',
  'LowShareCount',
  'InvalidShareTotal',
  'ZeroTransferAmount',
  'TransferAmountAboveBalance',
  'TransferAmountAboveUnusedBalance',
  'ZeroWithdrawalAmount',
  'WithdrawalAmountAboveAllocation',
  'NoSharesToSell',
  'NoActiveListing',
  'InsufficientSharesInListing',
  'InvalidPrice',
  'InvalidShareAmount',
  'CannotBuyOwnShares',
  'NoSharesToTransfer',
  'InsufficientSharesToTransfer',
  'CannotTransferToSelf',
  'Overflow',
  'NegativeShareAmount',
  'DuplicateShareholder',
  'InvalidCommissionRate',
  'TooManyShareholders',
  'DistributionInProgress',
  'NoDistributionInProgress',
  'DistributionNotComplete',
  'MigrationNotNeeded',
];

const SPLITTER_V2 = [
  'NotInitialized',
  'AlreadyInitialized',
  'Unauthorized',
  'ContractLocked',
  'LowShareCount',
  'InvalidShareTotal',
  'NegativeShareAmount',
  'DuplicateShareholder',
  'ZeroTransferAmount',
  'TransferAmountAboveBalance',
  'TransferAmountAboveUnusedBalance',
  'InvalidDistributionRound',
  'RoundNotFound',
  'AlreadyClaimed',
  'NothingToClaim',
  'RoundNotFinalized',
  'InsufficientTokenBalance',
  'TokenMintFailed',
  'TokenBurnFailed',
  'Overflow',
  'DivisionByZero',
  'InvalidCommissionRate',
  'ZeroWithdrawalAmount',
  'WithdrawalAmountAboveAllocation',
  'DistributionTooSoon',
  'ClaimsNotOpenYet',
  'RoundExpired',
  'ScheduleNotConfigured',
  'ScheduleNotEnabled',
  'ScheduleCompleted',
  'ScheduledDistributionNotDue',
  'InvalidScheduleConfig',
  'RoundNotExpired',
  'NothingToReclaim',
  'NoSharesToTransfer',
  'InsufficientSharesToTransfer',
  'CannotTransferToSelf',
  'InvalidShareAmount',
  'InvalidPrice',
  'NoSharesToSell',
  'NoActiveListing',
  'InsufficientSharesInListing',
  'CannotBuyOwnShares',
  'InvalidProof',
  'NotSnapshotRound',
  'ListingAlreadyExists',
];

const CROWDFUNDING = [
  'NotInitialized',
  'AlreadyInitialized',
  'Unauthorized',
  'CampaignNotActive',
  'CampaignAlreadyFinalized',
  'DeadlineNotReached',
  'CampaignNotSucceeded',
  'CampaignNotFailed',
  'CampaignAlreadyActivated',
  'InvalidSharesAmount',
  'HardCapReached',
  'NothingToRefund',
  'InvalidPrice',
  'InvalidCap',
  'InvalidDeadline',
  'Overflow',
  'NoPendingActivation',
  'ActivationTimelockPending',
  'SplitterMismatch',
  'InvalidSplitter',
  'ActivationWindowExpired',
  'ActivationWindowStillOpen',
  'NoticePeriodOver',
  'InvalidPayoutMode',
];

const NAMES: Record<ContractFamily, readonly string[]> = { splitter_v1: SPLITTER_V1, splitter_v2: SPLITTER_V2, crowdfunding: CROWDFUNDING };

/** e.g. ('splitter_v1', 13) → 'NoActiveListing'; null for a code the family does not define. */
export function contractErrorName(family: ContractFamily, code: number): string | null {
  return NAMES[family][code - 1] ?? null;
}

/** The splitter family of a pool version as the read models record it ('1' | '2'); unknown versions read as V1. */
export function splitterFamily(poolVersion: string | null | undefined): ContractFamily {
  return poolVersion === '2' ? 'splitter_v2' : 'splitter_v1';
}

/** The contract error number in a host error text such as "HostError: Error(Contract, #13)" (stellar-rpc simulate). */
export function contractErrorCode(hostError: string): number | null {
  const m = /Error\(Contract, #(\d+)\)/.exec(hostError);
  return m ? Number(m[1]) : null;
}

export interface ContractErrorDetail {
  readonly code: number;
  readonly name: string | null;
  readonly contract: ContractFamily;
}

export function describeContractError(family: ContractFamily, hostError: string): ContractErrorDetail | null {
  const code = contractErrorCode(hostError);
  return code === null ? null : { code, name: contractErrorName(family, code), contract: family };
}
