import { POOL_TYPES, poolStreamId, type ChainDerivedEventType } from '@dob/domain';
import { draftOf, type DraftData, type DraftOf, type RawChainEvent } from './chain-event';
import type { DecodeContext, SymbolDecoder } from './decoder-context';
import { DecodeError, expectTopicCount, readAddress, readBool, readContractAddress, readI128, readTuple, readU32, readU64, readVoid, unixToIso } from './scval';

/** Splitter V1 (docs/contracts.md §2.4) and V2 (docs/contracts.md §3.3) events. Shapes shared by both are decoded once; the version gates which exist. */

const pool = (e: RawChainEvent, ctx: DecodeContext) => poolStreamId(ctx.networkId, e.contractId);
const draft = <K extends ChainDerivedEventType>(e: RawChainEvent, ctx: DecodeContext, type: K, data: DraftData<K>): DraftOf<K> =>
  draftOf(pool(e, ctx), type, data);

const initV1: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [sharesLen, mutable] = readTuple(e.value, [2], 'init data (V1: shares_len, mutable)');
  return [
    draft(e, ctx, 'PoolInitialized', {
      pool_version: '1',
      contract_version: ctx.identity.version,
      admin: readAddress(e.topic[1], 'admin'),
      shares_len: readU32(sharesLen, 'shares_len'),
      mutable: readBool(mutable, 'mutable'),
      participation_token: null,
      pool_type: null,
      pool_type_code: null,
    }),
  ];
};

const initV2: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [pt, sharesLen, mutable, poolType] = readTuple(e.value, [4], 'init data (V2: participation_token, shares_len, mutable, pool_type)');
  const code = readU32(poolType, 'pool_type');
  return [
    draft(e, ctx, 'PoolInitialized', {
      pool_version: '2',
      contract_version: ctx.identity.version,
      admin: readAddress(e.topic[1], 'admin'),
      shares_len: readU32(sharesLen, 'shares_len'),
      mutable: readBool(mutable, 'mutable'),
      participation_token: readContractAddress(pt, 'participation_token'),
      pool_type: POOL_TYPES[code] ?? null,
      pool_type_code: code,
    }),
  ];
};

/** `transfer` from a splitter: 2 topics = transfer_tokens (recipient) → (token, amount); 3 = transfer_shares → i128. */
const transfer: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2, 3]);
  if (e.topic.length === 2) {
    const [token, amount] = readTuple(e.value, [2], 'transfer_tokens data');
    return [
      draft(e, ctx, 'PoolTokensWithdrawnByAdmin', {
        recipient: readAddress(e.topic[1], 'recipient'),
        token: readContractAddress(token, 'token'),
        amount: readI128(amount, 'amount').toString(),
      }),
    ];
  }
  return [
    draft(e, ctx, 'SharesTransferred', {
      pool: e.contractId,
      from: readAddress(e.topic[1], 'from'),
      to: readAddress(e.topic[2], 'to'),
      shares: readI128(e.value, 'amount').toString(),
      reason: 'direct',
    }),
  ];
};

const distCom: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [recipient, commission] = readTuple(e.value, [2], 'dist_com data');
  return [
    draft(e, ctx, 'DistributionCommissionPaid', {
      token: readContractAddress(e.topic[1], 'token'),
      recipient: readAddress(recipient, 'recipient'),
      commission: readI128(commission, 'commission').toString(),
    }),
  ];
};

/** `distrib` / `dust` / `withdraw`: (shareholder) → (token, amount). */
const holderTokenAmount =
  (type: 'DistributionAllocated' | 'DistributionDustAllocated' | 'AllocationWithdrawn'): SymbolDecoder =>
  (e, ctx) => {
    expectTopicCount(e.topic, [2]);
    const [token, amount] = readTuple(e.value, [2], `${type} data`);
    return [
      draft(e, ctx, type, {
        shareholder: readAddress(e.topic[1], 'shareholder'),
        token: readContractAddress(token, 'token'),
        amount: readI128(amount, 'amount').toString(),
      }),
    ];
  };

const distAll: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  return [
    draft(e, ctx, 'DistributionCompleted', {
      token: readContractAddress(e.topic[1], 'token'),
      total_distributed: readI128(e.value, 'total_distributed').toString(),
    }),
  ];
};

const distStr: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [1]);
  const [count, amount] = readTuple(e.value, [2], 'dist_str data');
  return [
    draft(e, ctx, 'DistributionBatchStarted', {
      shareholder_count: readU32(count, 'shareholder_count'),
      amount_for_shareholders: readI128(amount, 'amount_for_shareholders').toString(),
    }),
  ];
};

const shares: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [1]);
  return [draft(e, ctx, 'ShareTableUpdated', { shareholder_count: readU32(e.value, 'count') })];
};

const locked: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [1]);
  if (!readBool(e.value, 'locked')) throw new DecodeError('locked: expected true');
  return [draft(e, ctx, 'PoolLocked', {})];
};

const listed: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [amount, price, token] = readTuple(e.value, [3], 'listed data');
  return [
    draft(e, ctx, 'ListingCreated', {
      pool: e.contractId,
      seller: readAddress(e.topic[1], 'seller'),
      shares_amount: readI128(amount, 'shares_amount').toString(),
      price_per_share: readI128(price, 'price_per_share').toString(),
      payment_token: readContractAddress(token, 'payment_token'),
    }),
  ];
};

const canceled: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  if (!readBool(e.value, 'canceled')) throw new DecodeError('canceled: expected true');
  return [draft(e, ctx, 'ListingCancelled', { pool: e.contractId, seller: readAddress(e.topic[1], 'seller') })];
};

/** `sold` → the sale itself plus the share movement it causes (index 1 of the same chain event). */
const sold: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [3]);
  const [amount, total, token] = readTuple(e.value, [3], 'sold data');
  const seller = readAddress(e.topic[1], 'seller');
  const buyer = readAddress(e.topic[2], 'buyer');
  const sharesSold = readI128(amount, 'shares_amount');
  const totalPrice = readI128(total, 'total_price');
  // total_price = shares × price_per_share on chain (docs/contracts.md §2.5), so the division is exact unless shares is 0.
  const price = sharesSold > 0n && totalPrice % sharesSold === 0n ? (totalPrice / sharesSold).toString() : null;
  return [
    draft(e, ctx, 'ListingSold', {
      pool: e.contractId,
      seller,
      buyer,
      shares_sold: sharesSold.toString(),
      total_price: totalPrice.toString(),
      price_per_share: price,
      payment_token: readContractAddress(token, 'payment_token'),
      shares_remaining: null,
    }),
    draft(e, ctx, 'SharesTransferred', {
      pool: e.contractId,
      from: seller,
      to: buyer,
      shares: sharesSold.toString(),
      reason: 'marketplace_sale',
    }),
  ];
};

const migrated: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [1]);
  const [holders, listings] = readTuple(e.value, [2], 'migrated data');
  return [
    draft(e, ctx, 'PoolStorageMigrated', {
      migrated_shareholders: readU32(holders, 'migrated_shareholders'),
      migrated_listings: readU32(listings, 'migrated_listings'),
    }),
  ];
};

/** contractevent SetAdmin: topics [set_admin, old_admin], data new_admin. */
const setAdmin: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  return [
    draft(e, ctx, 'PoolAdminChanged', {
      previous_admin: readAddress(e.topic[1], 'old_admin'),
      new_admin: readAddress(e.value, 'new_admin'),
    }),
  ];
};

const adminProposed: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  return [
    draft(e, ctx, 'PoolAdminProposed', {
      admin: readAddress(e.topic[1], 'admin'),
      pending_admin: readAddress(e.value, 'pending_admin'),
    }),
  ];
};

const cfgSet: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [1]);
  const [minInterval, claimDelay, expiry] = readTuple(e.value, [3], 'cfg_set data');
  return [
    draft(e, ctx, 'PoolDistributionConfigured', {
      min_interval_seconds: readU64(minInterval, 'min_interval_seconds').toString(),
      claim_delay_seconds: readU64(claimDelay, 'claim_delay_seconds').toString(),
      round_expiry_seconds: readU64(expiry, 'round_expiry_seconds').toString(),
    }),
  ];
};

const schedSet: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [1]);
  const [first, interval, total] = readTuple(e.value, [3], 'sched_set data');
  return [
    draft(e, ctx, 'PoolScheduleSet', {
      first_distribution_time: readU64(first, 'first_distribution_time').toString(),
      interval_seconds: readU64(interval, 'interval_seconds').toString(),
      total_distributions: readU32(total, 'total_distributions'),
    }),
  ];
};

const schedOff: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [1]);
  readVoid(e.value, 'sched_off data');
  return [draft(e, ctx, 'PoolScheduleDisabled', {})];
};

const distNew: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [roundId, amount, claimableFrom, expiresAt] = readTuple(e.value, [4], 'dist_new data');
  const from = readU64(claimableFrom, 'claimable_from');
  const until = readU64(expiresAt, 'expires_at');
  return [
    draft(e, ctx, 'RoundCreated', {
      round_id: readU64(roundId, 'round_id').toString(),
      token: readContractAddress(e.topic[1], 'token'),
      total_amount: readI128(amount, 'amount').toString(),
      claimable_from: unixToIso(from, 'claimable_from'),
      expires_at: unixToIso(until, 'expires_at'),
      claimable_from_unix: from.toString(),
      expires_at_unix: until.toString(),
    }),
  ];
};

const schedTr: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [roundId] = readTuple(e.value, [1], 'sched_tr data');
  return [
    draft(e, ctx, 'ScheduledRoundTriggered', {
      round_id: readU64(roundId, 'round_id').toString(),
      token: readContractAddress(e.topic[1], 'token'),
    }),
  ];
};

const claimed: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [roundId, token, amount] = readTuple(e.value, [3], 'claimed data');
  return [
    draft(e, ctx, 'RoundClaimed', {
      shareholder: readAddress(e.topic[1], 'shareholder'),
      round_id: readU64(roundId, 'round_id').toString(),
      token: readContractAddress(token, 'token'),
      amount: readI128(amount, 'amount').toString(),
    }),
  ];
};

const reclaim: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [roundId, unclaimed] = readTuple(e.value, [2], 'reclaim data');
  return [
    draft(e, ctx, 'RoundReclaimed', {
      round_id: readU64(roundId, 'round_id').toString(),
      token: readContractAddress(e.topic[1], 'token'),
      unclaimed: readI128(unclaimed, 'unclaimed').toString(),
    }),
  ];
};

const V1_2: Record<string, SymbolDecoder> = {
  init: initV1,
  transfer,
  dist_com: distCom,
  distrib: holderTokenAmount('DistributionAllocated'),
  dust: holderTokenAmount('DistributionDustAllocated'),
  dist_all: distAll,
  withdraw: holderTokenAmount('AllocationWithdrawn'),
  shares,
  locked,
  listed,
  canceled,
  sold,
};
const V1_3: Record<string, SymbolDecoder> = { ...V1_2, dist_str: distStr, migrated };
const V1_3_ADMIN: Record<string, SymbolDecoder> = { ...V1_3, set_admin: setAdmin };
const V2: Record<string, SymbolDecoder> = {
  init: initV2,
  transfer,
  dist_com: distCom,
  withdraw: holderTokenAmount('AllocationWithdrawn'),
  shares,
  locked,
  listed,
  canceled,
  sold,
  cfg_set: cfgSet,
  sched_set: schedSet,
  sched_off: schedOff,
  dist_new: distNew,
  sched_tr: schedTr,
  claimed,
  reclaim,
  admin_proposed: adminProposed,
  set_admin: setAdmin,
};

/** Symbol tables per splitter build; "1" = a V1 of unidentified build (every V1 symbol accepted). */
export const SPLITTER_DECODERS: Readonly<Record<string, Readonly<Record<string, SymbolDecoder>>>> = {
  '1.0': {},
  '1.2': V1_2,
  '1.3': V1_3,
  '1.3-admin': V1_3_ADMIN,
  '1': V1_3_ADMIN,
  '2': V2,
};
