import { Address, Keypair, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import type { RawChainEvent } from './chain-event';
import type { ContractIdentity } from './contract-identity';
import { decodeChainEvent } from './decode-chain-event';

/** One test per event layout of the facts tables (docs/contracts.md §2.4, §3.3, §4.4, §5, §8), built with stellar-sdk. */
const contract = (seed: number) => Address.contract(Buffer.alloc(32, seed)).toString();
const account = () => Keypair.random().publicKey();
const POOL = contract(1);
const CAMPAIGN = contract(2);
const PT = contract(3);
const TOKEN = contract(4);
const SPLITTER = contract(5);
const A = account();
const B = account();

const sym = (s: string) => xdr.ScVal.scvSymbol(s);
const addr = (a: string) => Address.fromString(a).toScVal();
const i128 = (n: bigint | number) => nativeToScVal(BigInt(n), { type: 'i128' });
const u64 = (n: bigint | number) => nativeToScVal(BigInt(n), { type: 'u64' });
const u32 = (n: number) => xdr.ScVal.scvU32(n);
const bool = (b: boolean) => xdr.ScVal.scvBool(b);
const vec = (...v: xdr.ScVal[]) => xdr.ScVal.scvVec(v);

const splitter = (version: string): ContractIdentity => ({ contractId: POOL, kind: 'splitter', version });
const cf = (version: string): ContractIdentity => ({ contractId: CAMPAIGN, kind: 'crowdfunding', version });
const pt: ContractIdentity = { contractId: PT, kind: 'participation_token', version: '0.2', pool: POOL, poolType: 'crowdfunding' };

function decode(identity: ContractIdentity, topic: xdr.ScVal[], value: xdr.ScVal, others: ContractIdentity[] = []) {
  const e: RawChainEvent = {
    id: '0000000429496733697-0000000001',
    ledger: 100,
    ledgerClosedAt: '2026-01-01T00:00:00Z',
    txHash: 'cd'.repeat(32),
    contractId: identity.contractId,
    topic,
    value,
  };
  const all = new Map([identity, ...others].map((i) => [i.contractId, i]));
  return decodeChainEvent(e, { networkId: 10, identity, identityOf: (c) => all.get(c) });
}

type Case = [string, ContractIdentity, xdr.ScVal[], xdr.ScVal, string, Record<string, unknown>];
const cases: Case[] = [
  [
    'V1 init',
    splitter('1.2'),
    [sym('init'), addr(A)],
    vec(u32(3), bool(true)),
    'PoolInitialized',
    { pool_version: '1', admin: A, shares_len: 3, mutable: true, participation_token: null },
  ],
  [
    'V2 init',
    splitter('2'),
    [sym('init'), addr(A)],
    vec(addr(PT), u32(2), bool(false), u32(3)),
    'PoolInitialized',
    { pool_version: '2', participation_token: PT, pool_type: 'crowdfunding', pool_type_code: 3, mutable: false },
  ],
  [
    'transfer_tokens',
    splitter('1.2'),
    [sym('transfer'), addr(A)],
    vec(addr(TOKEN), i128(50)),
    'PoolTokensWithdrawnByAdmin',
    { recipient: A, token: TOKEN, amount: '50' },
  ],
  [
    'transfer_shares',
    splitter('2'),
    [sym('transfer'), addr(A), addr(B)],
    i128(250),
    'SharesTransferred',
    { from: A, to: B, shares: '250', reason: 'direct', pool: POOL },
  ],
  [
    'dist_com',
    splitter('1.2'),
    [sym('dist_com'), addr(TOKEN)],
    vec(addr(B), i128(5)),
    'DistributionCommissionPaid',
    { token: TOKEN, recipient: B, commission: '5' },
  ],
  [
    'distrib',
    splitter('1.2'),
    [sym('distrib'), addr(A)],
    vec(addr(TOKEN), i128(990)),
    'DistributionAllocated',
    { shareholder: A, token: TOKEN, amount: '990' },
  ],
  ['dust', splitter('1.2'), [sym('dust'), addr(A)], vec(addr(TOKEN), i128(1)), 'DistributionDustAllocated', { shareholder: A, amount: '1' }],
  ['dist_all', splitter('1.2'), [sym('dist_all'), addr(TOKEN)], i128(995), 'DistributionCompleted', { token: TOKEN, total_distributed: '995' }],
  [
    'dist_str',
    splitter('1.3'),
    [sym('dist_str')],
    vec(u32(60), i128(1000)),
    'DistributionBatchStarted',
    { shareholder_count: 60, amount_for_shareholders: '1000' },
  ],
  ['withdraw', splitter('1.2'), [sym('withdraw'), addr(A)], vec(addr(TOKEN), i128(7)), 'AllocationWithdrawn', { shareholder: A, token: TOKEN, amount: '7' }],
  ['shares', splitter('1.2'), [sym('shares')], u32(4), 'ShareTableUpdated', { shareholder_count: 4 }],
  ['locked', splitter('2'), [sym('locked')], bool(true), 'PoolLocked', {}],
  [
    'listed',
    splitter('1.2'),
    [sym('listed'), addr(A)],
    vec(i128(100), i128(30), addr(TOKEN)),
    'ListingCreated',
    { seller: A, shares_amount: '100', price_per_share: '30', payment_token: TOKEN },
  ],
  ['canceled', splitter('2'), [sym('canceled'), addr(A)], bool(true), 'ListingCancelled', { seller: A }],
  ['migrated', splitter('1.3'), [sym('migrated')], vec(u32(10), u32(2)), 'PoolStorageMigrated', { migrated_shareholders: 10, migrated_listings: 2 }],
  ['V1.3-admin set_admin', splitter('1.3-admin'), [sym('set_admin'), addr(A)], addr(B), 'PoolAdminChanged', { previous_admin: A, new_admin: B }],
  ['admin_proposed', splitter('2'), [sym('admin_proposed'), addr(A)], addr(B), 'PoolAdminProposed', { admin: A, pending_admin: B }],
  [
    'cfg_set',
    splitter('2'),
    [sym('cfg_set')],
    vec(u64(43200), u64(0), u64(31536000)),
    'PoolDistributionConfigured',
    { min_interval_seconds: '43200', claim_delay_seconds: '0', round_expiry_seconds: '31536000' },
  ],
  [
    'sched_set',
    splitter('2'),
    [sym('sched_set')],
    vec(u64(1_800_000_000), u64(86400), u32(0)),
    'PoolScheduleSet',
    { first_distribution_time: '1800000000', interval_seconds: '86400', total_distributions: 0 },
  ],
  ['sched_off', splitter('2'), [sym('sched_off')], xdr.ScVal.scvVoid(), 'PoolScheduleDisabled', {}],
  ['sched_tr', splitter('2'), [sym('sched_tr'), addr(TOKEN)], vec(u64(3)), 'ScheduledRoundTriggered', { round_id: '3', token: TOKEN }],
  [
    'claimed',
    splitter('2'),
    [sym('claimed'), addr(A)],
    vec(u64(2), addr(TOKEN), i128(44)),
    'RoundClaimed',
    { shareholder: A, round_id: '2', token: TOKEN, amount: '44' },
  ],
  ['reclaim', splitter('2'), [sym('reclaim'), addr(TOKEN)], vec(u64(2), i128(9)), 'RoundReclaimed', { round_id: '2', token: TOKEN, unclaimed: '9' }],
  [
    'cf_init (5 items, CF-e)',
    cf('e'),
    [sym('cf_init'), addr(A)],
    vec(addr(TOKEN), i128(100), i128(1000), i128(5000), u64(1_900_000_000)),
    'CampaignCreated',
    {
      contract_version: 'e',
      admin: A,
      payment_token: TOKEN,
      price_per_share: '100',
      soft_cap_shares: '1000',
      hard_cap_shares: '5000',
      deadline: '2030-03-17T17:46:40.000Z',
      deadline_unix: '1900000000',
      payout_mode: null,
    },
  ],
  [
    'cf_init (6 items, CF-g)',
    cf('g'),
    [sym('cf_init'), addr(A)],
    vec(addr(TOKEN), i128(100), i128(1000), i128(5000), u64(1_900_000_000), u32(1)),
    'CampaignCreated',
    { payout_mode: 'direct_to_owner' },
  ],
  [
    'cf_ctrb',
    cf('g'),
    [sym('cf_ctrb'), addr(A)],
    vec(i128(10), i128(1000), i128(110)),
    'CampaignContributed',
    { investor: A, shares: '10', payment: '1000', total_shares_sold: '110' },
  ],
  ['cf_rfnd', cf('a'), [sym('cf_rfnd'), addr(A)], vec(i128(10), i128(1000)), 'CampaignRefunded', { investor: A, shares: '10', refund_amount: '1000' }],
  [
    'cf_done succeeded',
    cf('a'),
    [sym('cf_done'), addr(CAMPAIGN)],
    vec(u32(1), i128(1200), i128(120000)),
    'CampaignFinalized',
    { outcome: 'succeeded', status_code: 1 },
  ],
  [
    'cf_prop',
    cf('d'),
    [sym('cf_prop'), addr(CAMPAIGN)],
    vec(addr(SPLITTER), u64(1_900_000_000)),
    'CampaignActivationProposed',
    { splitter: SPLITTER, eta_unix: '1900000000' },
  ],
  [
    'cf_actv (2 items, CF-a)',
    cf('a'),
    [sym('cf_actv'), addr(CAMPAIGN)],
    vec(addr(SPLITTER), i128(120000)),
    'CampaignActivated',
    { splitter: SPLITTER, total_raised: '120000', payout_mode: null },
  ],
  ['cf_cncl', cf('e'), [sym('cf_cncl'), addr(CAMPAIGN)], addr(SPLITTER), 'CampaignActivationCancelled', { splitter: SPLITTER }],
  ['cf_optout', cf('g'), [sym('cf_optout'), addr(A)], vec(i128(5), i128(500)), 'CampaignOptedOut', { investor: A, shares: '5', refund_amount: '500' }],
  ['PT transfer', pt, [sym('transfer'), addr(A), addr(B)], i128(-3), 'ParticipationTokenTransferred', { pool: POOL, token: PT, from: A, to: B, amount: '-3' }],
  ['PT burn', pt, [sym('burn'), addr(A)], i128(3), 'ParticipationTokenBurned', { from: A, amount: '3' }],
  ['PT clawback', pt, [sym('clawback'), addr(POOL), addr(A)], i128(3), 'ParticipationTokenClawedBack', { admin: POOL, from: A, amount: '3' }],
  ['PT approve', pt, [sym('approve'), addr(A), addr(B)], vec(i128(3), u32(5000)), 'ParticipationTokenApproved', { spender: B, expiration_ledger: 5000 }],
  ['PT set_admin', pt, [sym('set_admin'), addr(POOL)], addr(A), 'ParticipationTokenAdminChanged', { previous_admin: POOL, new_admin: A }],
];

describe('one decoder test per layout', () => {
  it.each(cases)('%s', (_name, identity, topic, value, type, data) => {
    const r = decode(identity, topic, value);
    expect(r.undecodedReason).toBeNull();
    expect(r.events[0].event.type).toBe(type);
    expect(r.events[0].event.data).toMatchObject(data);
    expect(r.events[0].event.data.chain).toMatchObject({ network_id: 10, contract_id: identity.contractId, ledger: 100 });
  });

  it('sold: the sale and the share movement, with two distinct deterministic ids', () => {
    const r = decode(splitter('1.2'), [sym('sold'), addr(A), addr(B)], vec(i128(40), i128(1200), addr(TOKEN)));
    expect(r.events.map((e) => [e.event.type, e.event.data])).toEqual([
      ['ListingSold', expect.objectContaining({ seller: A, buyer: B, shares_sold: '40', total_price: '1200', price_per_share: '30', shares_remaining: null })],
      ['SharesTransferred', expect.objectContaining({ from: A, to: B, shares: '40', reason: 'marketplace_sale' })],
    ]);
    expect(new Set(r.events.map((e) => e.event.id)).size).toBe(2);
  });

  it('PT mint into a crowdfunding pool: mint plus a crowdfunding_allocation share movement on the pool stream', () => {
    const r = decode(pt, [sym('mint'), addr(POOL), addr(A)], i128(700));
    expect(r.events.map((e) => [e.streamId, e.event.type])).toEqual([
      [`pool-10-${POOL}`, 'ParticipationTokenMinted'],
      [`pool-10-${POOL}`, 'SharesTransferred'],
    ]);
    expect(r.events[1].event.data).toMatchObject({ from: null, to: A, shares: '700', reason: 'crowdfunding_allocation' });
  });

  describe('symbol collisions are resolved by contract identity (docs/contracts.md §8)', () => {
    it('`init` with the V2 layout from a V1 contract is undecoded, not misread', () => {
      const r = decode(splitter('1.2'), [sym('init'), addr(A)], vec(addr(PT), u32(2), bool(false), u32(0)));
      expect(r.events[0].event.type).toBe('ChainEventUndecoded');
      expect(r.undecodedReason).toMatch(/expected a vec of 2 items, got 4/);
    });

    it('V1.2 has no set_admin, V1.0 emits nothing, V2 has no dist_all', () => {
      expect(decode(splitter('1.2'), [sym('set_admin'), addr(A)], addr(B)).undecodedReason).toMatch(/no "set_admin" event in splitter 1.2/);
      expect(decode(splitter('1.0'), [sym('shares')], u32(2)).undecodedReason).toMatch(/no "shares" event/);
      expect(decode(splitter('2'), [sym('dist_all'), addr(TOKEN)], i128(1)).undecodedReason).toMatch(/no "dist_all"/);
    });

    it('a 3-topic `transfer` is a share transfer from a splitter but a token transfer from a participation token', () => {
      const topic = [sym('transfer'), addr(A), addr(B)];
      expect(decode(splitter('1.2'), topic, i128(1)).events[0].event.type).toBe('SharesTransferred');
      expect(decode(pt, topic, i128(1)).events[0].event.type).toBe('ParticipationTokenTransferred');
    });

    it('SAC transfer is recorded once per watched party and ignored between outsiders', () => {
      const sac: ContractIdentity = { contractId: TOKEN, kind: 'sac', version: 'cap67' };
      const topic = (from: string, to: string) => [sym('transfer'), addr(from), addr(to), xdr.ScVal.scvString('USDC:' + B)];
      const watched = [splitter('2'), cf('g')];
      expect(decode(sac, topic(A, B), i128(5), watched).events).toHaveLength(0);
      const both = decode(sac, topic(CAMPAIGN, POOL), i128(5), watched);
      expect(both.events.map((e) => e.streamId)).toEqual([`campaign-10-${CAMPAIGN}`, `pool-10-${POOL}`]);
      expect(decode(sac, [sym('mint'), addr(A), addr(POOL), xdr.ScVal.scvString('x')], i128(1), watched).events).toHaveLength(0);
    });
  });

  it('wrong types and unknown symbols become ChainEventUndecoded with the raw XDR (never dropped)', () => {
    const calls: string[] = [];
    const e: RawChainEvent = {
      id: '1-1',
      ledger: 5,
      ledgerClosedAt: '2026-01-01T00:00:00Z',
      txHash: 'ef'.repeat(32),
      contractId: CAMPAIGN,
      topic: [sym('cf_ctrb'), addr(A)],
      value: vec(i128(1), u32(2), i128(3)),
    };
    const r = decodeChainEvent(e, { networkId: 9, identity: cf('g'), identityOf: () => undefined }, (i) => calls.push(i.reason));
    expect(r.events[0].streamId).toBe(`campaign-9-${CAMPAIGN}`);
    expect(r.events[0].event.data).toMatchObject({
      topic_xdr: e.topic.map((t) => t.toXdr('base64')),
      value_xdr: e.value.toXdr('base64'),
      contract_kind: 'crowdfunding',
      reason: 'payment: expected scvI128, got scvU32',
    });
    expect(calls).toEqual(['payment: expected scvI128, got scvU32']);
  });
});
