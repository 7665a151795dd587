import { PAYOUT_MODES, campaignStreamId, type ChainDerivedEventType } from '@dob/domain';
import { draftOf, type DraftData, type DraftOf, type RawChainEvent } from './chain-event';
import { CF_PAYOUT_BUILDS } from './contract-identity';
import type { DecodeContext, SymbolDecoder } from './decoder-context';
import { DecodeError, expectTopicCount, readAddress, readContractAddress, readI128, readTuple, readU32, readU64, unixToIso } from './scval';

/** crowdfunding_v1 events (docs/contracts.md §4.4), builds CF-a…g told apart by wasm hash (identity.version) and data vec length. */

const draft = <K extends ChainDerivedEventType>(e: RawChainEvent, ctx: DecodeContext, type: K, data: DraftData<K>): DraftOf<K> =>
  draftOf(campaignStreamId(ctx.networkId, e.contractId), type, data);

/** Allowed data lengths for a layout that gained payout_mode in CF-c/f/g; unknown builds accept either. */
function payoutLengths(ctx: DecodeContext, base: number): number[] {
  const v = ctx.identity.version;
  if (v === 'unknown') return [base, base + 1];
  return CF_PAYOUT_BUILDS.has(v) ? [base + 1] : [base];
}

function payoutMode(v: Parameters<typeof readU32>[0]): (typeof PAYOUT_MODES)[number] {
  const code = readU32(v, 'payout_mode');
  const mode = PAYOUT_MODES[code];
  if (!mode) throw new DecodeError(`payout_mode: unknown discriminant ${code}`);
  return mode;
}

/** The campaign's own address is the first topic of cf_done/cf_prop/cf_actv/cf_cncl/cf_expr. */
function expectSelf(e: RawChainEvent): void {
  expectTopicCount(e.topic, [2]);
  const self = readAddress(e.topic[1], 'campaign');
  if (self !== e.contractId) throw new DecodeError(`campaign topic ${self} is not the emitting contract`);
}

const cfInit: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const items = readTuple(e.value, payoutLengths(ctx, 5), 'cf_init data');
  const [token, price, soft, hard, deadline, mode] = items;
  const deadlineUnix = readU64(deadline, 'deadline');
  return [
    draft(e, ctx, 'CampaignCreated', {
      contract_version: ctx.identity.version,
      admin: readAddress(e.topic[1], 'admin'),
      payment_token: readContractAddress(token, 'payment_token'),
      price_per_share: readI128(price, 'price_per_share').toString(),
      soft_cap_shares: readI128(soft, 'soft_cap_shares').toString(),
      hard_cap_shares: readI128(hard, 'hard_cap_shares').toString(),
      deadline: unixToIso(deadlineUnix, 'deadline'),
      deadline_unix: deadlineUnix.toString(),
      payout_mode: mode ? payoutMode(mode) : null,
    }),
  ];
};

const cfCtrb: SymbolDecoder = (e, ctx) => {
  expectTopicCount(e.topic, [2]);
  const [shares, payment, sold] = readTuple(e.value, [3], 'cf_ctrb data');
  return [
    draft(e, ctx, 'CampaignContributed', {
      investor: readAddress(e.topic[1], 'investor'),
      shares: readI128(shares, 'shares').toString(),
      payment: readI128(payment, 'payment').toString(),
      total_shares_sold: readI128(sold, 'total_shares_sold').toString(),
    }),
  ];
};

/** `cf_optout` / `cf_rfnd`: (investor) → (shares, refund_amount). */
const investorRefund =
  (type: 'CampaignOptedOut' | 'CampaignRefunded'): SymbolDecoder =>
  (e, ctx) => {
    expectTopicCount(e.topic, [2]);
    const [shares, refund] = readTuple(e.value, [2], `${type} data`);
    return [
      draft(e, ctx, type, {
        investor: readAddress(e.topic[1], 'investor'),
        shares: readI128(shares, 'shares').toString(),
        refund_amount: readI128(refund, 'refund_amount').toString(),
      }),
    ];
  };

const cfDone: SymbolDecoder = (e, ctx) => {
  expectSelf(e);
  const [status, sold, raised] = readTuple(e.value, [3], 'cf_done data');
  const code = readU32(status, 'status');
  // CampaignStatus: 1 Succeeded, 2 Failed (docs/contracts.md §4.5); finalize never emits Fundraising or Activated.
  const outcome = code === 1 ? 'succeeded' : code === 2 ? 'failed' : null;
  if (!outcome) throw new DecodeError(`cf_done: unexpected status ${code}`);
  return [
    draft(e, ctx, 'CampaignFinalized', {
      outcome,
      status_code: code,
      total_shares_sold: readI128(sold, 'total_shares_sold').toString(),
      total_raised: readI128(raised, 'total_raised').toString(),
    }),
  ];
};

const cfProp: SymbolDecoder = (e, ctx) => {
  expectSelf(e);
  const [splitter, eta] = readTuple(e.value, [2], 'cf_prop data');
  const etaUnix = readU64(eta, 'eta');
  return [
    draft(e, ctx, 'CampaignActivationProposed', {
      splitter: readContractAddress(splitter, 'splitter'),
      eta: unixToIso(etaUnix, 'eta'),
      eta_unix: etaUnix.toString(),
    }),
  ];
};

const cfActv: SymbolDecoder = (e, ctx) => {
  expectSelf(e);
  const [splitter, raised, mode] = readTuple(e.value, payoutLengths(ctx, 2), 'cf_actv data');
  return [
    draft(e, ctx, 'CampaignActivated', {
      splitter: readContractAddress(splitter, 'splitter'),
      total_raised: readI128(raised, 'total_raised').toString(),
      payout_mode: mode ? payoutMode(mode) : null,
    }),
  ];
};

const cfCncl: SymbolDecoder = (e, ctx) => {
  expectSelf(e);
  return [draft(e, ctx, 'CampaignActivationCancelled', { splitter: readContractAddress(e.value, 'splitter') })];
};

const cfExpr: SymbolDecoder = (e, ctx) => {
  expectSelf(e);
  const [sold, raised] = readTuple(e.value, [2], 'cf_expr data');
  return [
    draft(e, ctx, 'CampaignActivationExpired', {
      total_shares_sold: readI128(sold, 'total_shares_sold').toString(),
      total_raised: readI128(raised, 'total_raised').toString(),
    }),
  ];
};

const CF_A: Record<string, SymbolDecoder> = {
  cf_init: cfInit,
  cf_ctrb: cfCtrb,
  cf_done: cfDone,
  cf_rfnd: investorRefund('CampaignRefunded'),
  cf_actv: cfActv,
};
/** CF-d: two-step activation with opt-out and expiry; CF-e+: cancel_activation emits cf_cncl. */
const CF_D: Record<string, SymbolDecoder> = { ...CF_A, cf_prop: cfProp, cf_optout: investorRefund('CampaignOptedOut'), cf_expr: cfExpr };
const CF_E: Record<string, SymbolDecoder> = { ...CF_D, cf_cncl: cfCncl };

export const CROWDFUNDING_DECODERS: Readonly<Record<string, Readonly<Record<string, SymbolDecoder>>>> = {
  a: CF_A,
  b: CF_A,
  c: CF_A,
  d: CF_D,
  e: CF_E,
  f: CF_E,
  g: CF_E,
  unknown: CF_E,
};
