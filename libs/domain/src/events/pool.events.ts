import { z } from 'zod';
import { chainPayload, contractAddress, i128String, stellarAddress, u64String } from './chain-ref';
import { defineEvent } from './define-event';

/** V2 PoolType discriminants (docs/contracts.md §3.1: 0 Reward, 1 Payroll, 2 Treasury, 3 Crowdfunding). */
export const POOL_TYPES = ['reward', 'payroll', 'treasury', 'crowdfunding'] as const;
export type PoolType = (typeof POOL_TYPES)[number];

/**
 * Splitter `init` (V1.2+: data (shares_len, mutable); V2: (participation_token, shares_len, mutable, pool_type)).
 * There is no on-chain "pool created" event: this is the first sighting of a pool (docs/decisions.md#d3).
 */
export const PoolInitialized = defineEvent(
  'PoolInitialized',
  chainPayload({
    pool_version: z.enum(['1', '2']),
    /** Build of the contract as identified by wasm hash / registry (e.g. "1.2", "1.3", "2"), or "unknown". */
    contract_version: z.string(),
    admin: stellarAddress,
    shares_len: z.number().int().nonnegative(),
    mutable: z.boolean(),
    participation_token: contractAddress.nullable(),
    pool_type: z.enum(POOL_TYPES).nullable(),
    /** Raw u32 discriminant, kept when it is outside the known list (then pool_type is null). */
    pool_type_code: z.number().int().nonnegative().nullable(),
    /**
     * V1 only: the cap table passed to `init` (the event carries only its length, docs/contracts.md §2.4), read by the indexer from
     * the transaction's invocation args; null when the transaction could not be read (e.g. init through a
     * deployer contract, or outside the RPC's transaction retention). V2 cap tables are the PT mints.
     */
    initial_shares: z
      .array(z.object({ shareholder: stellarAddress, share: i128String }).strict())
      .nullable()
      .optional(),
  }),
);

/** `set_admin` (V1.3-admin single step; V2 accept_admin, or pre-audit single step). */
export const PoolAdminChanged = defineEvent('PoolAdminChanged', chainPayload({ previous_admin: stellarAddress, new_admin: stellarAddress }));

/** V2 `admin_proposed` (two-step admin transfer, d6291db+). */
export const PoolAdminProposed = defineEvent('PoolAdminProposed', chainPayload({ admin: stellarAddress, pending_admin: stellarAddress }));

/** `locked`: the share table becomes immutable. */
export const PoolLocked = defineEvent('PoolLocked', chainPayload({}));

/** `shares`: update_shares replaced the whole cap table; data is only the new shareholder count. */
export const ShareTableUpdated = defineEvent(
  'ShareTableUpdated',
  chainPayload({
    shareholder_count: z.number().int().nonnegative(),
    /** The new cap table (update_shares args, read by the indexer from the transaction); null when unreadable. */
    shares: z
      .array(z.object({ shareholder: stellarAddress, share: i128String }).strict())
      .nullable()
      .optional(),
  }),
);

/**
 * Shares moved between wallets.
 * - direct: splitter `transfer(from,to)` (transfer_shares; also exit-liquidity instant_sell).
 * - marketplace_sale: derived from `sold` (V1 moves share-table points; V2 releases escrowed PT).
 * - crowdfunding_allocation: PT `mint` into a V2 pool of type Crowdfunding.
 * For V1 pools this is the cap-table change. For V2 pools balances live in the participation token:
 * projections take V2 balances from ParticipationToken* events and use this event as the user-facing record.
 */
export const SharesTransferred = defineEvent(
  'SharesTransferred',
  chainPayload({
    pool: contractAddress,
    from: stellarAddress.nullable(),
    to: stellarAddress,
    shares: i128String,
    reason: z.enum(['direct', 'marketplace_sale', 'crowdfunding_allocation']),
  }),
);

/** Splitter `transfer(recipient)` → (token, amount): admin moved tokens out of the pool (transfer_tokens). */
export const PoolTokensWithdrawnByAdmin = defineEvent(
  'PoolTokensWithdrawnByAdmin',
  chainPayload({ recipient: stellarAddress, token: contractAddress, amount: i128String }),
);

/** V2 `cfg_set`. */
export const PoolDistributionConfigured = defineEvent(
  'PoolDistributionConfigured',
  chainPayload({ min_interval_seconds: u64String, claim_delay_seconds: u64String, round_expiry_seconds: u64String }),
);

/** V2 `sched_set`. */
export const PoolScheduleSet = defineEvent(
  'PoolScheduleSet',
  chainPayload({
    first_distribution_time: u64String,
    interval_seconds: u64String,
    /** 0 = unlimited. */
    total_distributions: z.number().int().nonnegative(),
  }),
);

/** V2 `sched_off`. */
export const PoolScheduleDisabled = defineEvent('PoolScheduleDisabled', chainPayload({}));

/** V1.3 `migrated` (legacy vectors moved to indexed storage). */
export const PoolStorageMigrated = defineEvent(
  'PoolStorageMigrated',
  chainPayload({ migrated_shareholders: z.number().int().nonnegative(), migrated_listings: z.number().int().nonnegative() }),
);

/**
 * The V2 participation token's own ledger (old-style events without an asset topic, docs/contracts.md §5).
 * Amounts may be negative on the pre-audit build (P-1), so they are i128 strings with a sign.
 */
const tokenRef = { pool: contractAddress.nullable(), token: contractAddress };
export const ParticipationTokenTransferred = defineEvent(
  'ParticipationTokenTransferred',
  chainPayload({ ...tokenRef, from: stellarAddress, to: stellarAddress, amount: i128String }),
);
export const ParticipationTokenMinted = defineEvent(
  'ParticipationTokenMinted',
  chainPayload({ ...tokenRef, admin: stellarAddress, to: stellarAddress, amount: i128String }),
);
export const ParticipationTokenBurned = defineEvent('ParticipationTokenBurned', chainPayload({ ...tokenRef, from: stellarAddress, amount: i128String }));
export const ParticipationTokenClawedBack = defineEvent(
  'ParticipationTokenClawedBack',
  chainPayload({ ...tokenRef, admin: stellarAddress, from: stellarAddress, amount: i128String }),
);
export const ParticipationTokenApproved = defineEvent(
  'ParticipationTokenApproved',
  chainPayload({ ...tokenRef, from: stellarAddress, spender: stellarAddress, amount: i128String, expiration_ledger: z.number().int().nonnegative() }),
);
export const ParticipationTokenAdminChanged = defineEvent(
  'ParticipationTokenAdminChanged',
  chainPayload({ ...tokenRef, previous_admin: stellarAddress, new_admin: stellarAddress }),
);

export const poolEvents = [
  PoolInitialized,
  PoolAdminChanged,
  PoolAdminProposed,
  PoolLocked,
  ShareTableUpdated,
  SharesTransferred,
  PoolTokensWithdrawnByAdmin,
  PoolDistributionConfigured,
  PoolScheduleSet,
  PoolScheduleDisabled,
  PoolStorageMigrated,
  ParticipationTokenTransferred,
  ParticipationTokenMinted,
  ParticipationTokenBurned,
  ParticipationTokenClawedBack,
  ParticipationTokenApproved,
  ParticipationTokenAdminChanged,
];
