import { poolStreamId, tokenStreamId, type ChainDerivedEventType } from '@dob/domain';
import { draftOf, type DomainEventDraft, type DraftData, type RawChainEvent } from './chain-event';
import type { DecodeContext, SymbolDecoder } from './decoder-context';
import { expectTopicCount, readAddress, readI128, readTuple, readU32 } from './scval';

/**
 * participation_token (the V2 share token, docs/contracts.md §5): old-style events without an asset topic. Amounts can be negative
 * on the pre-audit build (P-1) and are kept as signed i128 strings. Appended to the owning pool's stream.
 */
type TokenEventType = Extract<ChainDerivedEventType, `ParticipationToken${string}`>;

function draftsFor(e: RawChainEvent, ctx: DecodeContext) {
  const pool = ctx.identity.pool ?? null;
  const streamId = pool ? poolStreamId(ctx.networkId, pool) : tokenStreamId(ctx.networkId, e.contractId);
  const base = { pool, token: e.contractId };
  return <K extends TokenEventType>(type: K, data: Omit<DraftData<K>, 'pool' | 'token'>): DomainEventDraft => ({ streamId, type, data: { ...base, ...data } });
}

const transfer: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [3]);
  return [
    draftsFor(e, ctx)('ParticipationTokenTransferred', {
      from: readAddress(e.topic[1], 'from'),
      to: readAddress(e.topic[2], 'to'),
      amount: readI128(e.value, 'amount').toString(),
    }),
  ];
};

const mint: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [3]);
  const make = draftsFor(e, ctx);
  const to = readAddress(e.topic[2], 'to');
  const amount = readI128(e.value, 'amount').toString();
  const out = [make('ParticipationTokenMinted', { admin: readAddress(e.topic[1], 'admin'), to, amount })];
  // Crowdfunding pools (PoolType 3) mint the campaign's allocation at init: surface it as a share movement.
  if (ctx.identity.poolType === 'crowdfunding' && ctx.identity.pool) {
    out.push(
      draftOf(poolStreamId(ctx.networkId, ctx.identity.pool), 'SharesTransferred', {
        pool: ctx.identity.pool,
        from: null,
        to,
        shares: amount,
        reason: 'crowdfunding_allocation',
      }),
    );
  }
  return out;
};

const burn: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  return [draftsFor(e, ctx)('ParticipationTokenBurned', { from: readAddress(e.topic[1], 'from'), amount: readI128(e.value, 'amount').toString() })];
};

const clawback: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [3]);
  return [
    draftsFor(e, ctx)('ParticipationTokenClawedBack', {
      admin: readAddress(e.topic[1], 'admin'),
      from: readAddress(e.topic[2], 'from'),
      amount: readI128(e.value, 'amount').toString(),
    }),
  ];
};

const approve: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [3]);
  const [amount, expiration] = readTuple(e.value, [2], 'approve data');
  return [
    draftsFor(e, ctx)('ParticipationTokenApproved', {
      from: readAddress(e.topic[1], 'from'),
      spender: readAddress(e.topic[2], 'spender'),
      amount: readI128(amount, 'amount').toString(),
      expiration_ledger: readU32(expiration, 'expiration_ledger'),
    }),
  ];
};

const setAdmin: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  return [
    draftsFor(e, ctx)('ParticipationTokenAdminChanged', {
      previous_admin: readAddress(e.topic[1], 'admin'),
      new_admin: readAddress(e.value, 'new_admin'),
    }),
  ];
};

export const PARTICIPATION_TOKEN_DECODERS: Readonly<Record<string, SymbolDecoder>> = {
  transfer,
  mint,
  burn,
  clawback,
  approve,
  set_admin: setAdmin,
};
