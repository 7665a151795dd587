import { StrKey } from '@stellar/stellar-sdk';
import { campaignStreamId, chainDomainEventId, poolStreamId, tokenStreamId } from '@dob/domain';
import { position, type RecordedEvent } from '@dob/event-store';

/**
 * One valid payload per relayed event type (each passes the domain catalog: sample-events.spec checks it), shaped
 * like what the indexer, scheduler and registry append, for the AsyncAPI validation test and relay tests.
 */
export const contract = (n: number): string => StrKey.encodeContract(Buffer.alloc(32, n));
export const account = (n: number): string => StrKey.encodeEd25519PublicKey(Buffer.alloc(32, n));

const NET = 9;
export const SAMPLE_POOL = contract(1);
export const SAMPLE_CAMPAIGN = contract(2);
const PT = contract(3);
const USDC = contract(4);
const A = account(10);
const B = account(11);
const T = '2026-03-01T12:00:05.000Z';

const chain = (contractId: string, n: number) => ({
  network_id: NET,
  contract_id: contractId,
  tx_hash: n.toString(16).padStart(64, 'a'),
  ledger: 5000 + n,
  event_id: `${String((5000 + n) * 4294967296).padStart(19, '0')}-0000000001`,
  closed_at: T,
});

interface Sample {
  readonly streamId: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

const onPool = (type: string, n: number, fields: Record<string, unknown>, emitter = SAMPLE_POOL): Sample => ({
  streamId: poolStreamId(NET, SAMPLE_POOL),
  type,
  data: { chain: chain(emitter, n), ...fields },
});
const onCampaign = (type: string, n: number, fields: Record<string, unknown>): Sample => ({
  streamId: campaignStreamId(NET, SAMPLE_CAMPAIGN),
  type,
  data: { chain: chain(SAMPLE_CAMPAIGN, n), ...fields },
});
const pt = (fields: Record<string, unknown>) => ({ pool: SAMPLE_POOL, token: PT, ...fields });
const metadata = {
  name: 'Solar Farm',
  ticker: 'SUN',
  access_type: 'public',
  distribution_type: 'revenue',
  estimated_apr: '8.5',
  max_participants: 100,
  token_to_distribute: 'USDC',
};

export const SAMPLES: readonly Sample[] = [
  onPool('PoolInitialized', 1, {
    pool_version: '2',
    contract_version: '2',
    admin: A,
    shares_len: 2,
    mutable: true,
    participation_token: PT,
    pool_type: 'reward',
    pool_type_code: 0,
    initial_shares: null,
  }),
  onPool('PoolAdminChanged', 2, { previous_admin: A, new_admin: B }),
  onPool('PoolAdminProposed', 3, { admin: A, pending_admin: B }),
  onPool('PoolLocked', 4, {}),
  onPool('ShareTableUpdated', 5, {
    shareholder_count: 2,
    shares: [
      { shareholder: A, share: '6000' },
      { shareholder: B, share: '4000' },
    ],
  }),
  onPool('SharesTransferred', 6, { pool: SAMPLE_POOL, from: A, to: B, shares: '250', reason: 'direct' }),
  onPool('PoolTokensWithdrawnByAdmin', 7, { recipient: A, token: USDC, amount: '5000000' }),
  onPool('PoolDistributionConfigured', 8, { min_interval_seconds: '43200', claim_delay_seconds: '0', round_expiry_seconds: '31536000' }),
  onPool('PoolScheduleSet', 9, { first_distribution_time: '1800000000', interval_seconds: '86400', total_distributions: 0 }),
  onPool('PoolScheduleDisabled', 10, {}),
  onPool('PoolStorageMigrated', 11, { migrated_shareholders: 10, migrated_listings: 2 }),
  onPool('ParticipationTokenTransferred', 12, pt({ from: A, to: B, amount: '30' }), PT),
  onPool('ParticipationTokenMinted', 13, pt({ admin: SAMPLE_POOL, to: A, amount: '1000' }), PT),
  onPool('ParticipationTokenBurned', 14, pt({ from: A, amount: '3' }), PT),
  onPool('ParticipationTokenClawedBack', 15, pt({ admin: SAMPLE_POOL, from: A, amount: '3' }), PT),
  onPool('ParticipationTokenApproved', 16, pt({ from: A, spender: SAMPLE_POOL, amount: '500', expiration_ledger: 90000 }), PT),
  onPool('ParticipationTokenAdminChanged', 17, pt({ previous_admin: A, new_admin: SAMPLE_POOL }), PT),
  {
    streamId: tokenStreamId(NET, PT),
    type: 'ParticipationTokenTransferred',
    data: { chain: chain(PT, 18), pool: null, token: PT, from: A, to: B, amount: '1' },
  },
  { streamId: poolStreamId(NET, SAMPLE_POOL), type: 'PoolRegistered', data: { network_id: NET, pool: SAMPLE_POOL, ...metadata, registered_at: T } },
  {
    streamId: poolStreamId(NET, SAMPLE_POOL),
    type: 'PoolMetadataUpdated',
    data: { network_id: NET, pool: SAMPLE_POOL, changes: { estimated_apr: '9.1' }, updated_at: T },
  },
  onPool('PaymentTokenTransferred', 19, { token: USDC, party: SAMPLE_POOL, from: A, to: SAMPLE_POOL, amount: '10000000', asset: `USDC:${A}` }, USDC),
  onPool('ListingCreated', 20, { pool: SAMPLE_POOL, seller: A, shares_amount: '1000', price_per_share: '500000', payment_token: USDC }),
  onPool('ListingSold', 21, {
    pool: SAMPLE_POOL,
    seller: A,
    buyer: B,
    shares_sold: '400',
    total_price: '200000000',
    price_per_share: '500000',
    payment_token: USDC,
    shares_remaining: null,
  }),
  onPool('ListingCancelled', 22, { pool: SAMPLE_POOL, seller: A }),
  onPool('DistributionCommissionPaid', 23, { token: USDC, recipient: B, commission: '50000' }),
  onPool('DistributionAllocated', 24, { shareholder: A, token: USDC, amount: '990000' }),
  onPool('DistributionDustAllocated', 25, { shareholder: A, token: USDC, amount: '1' }),
  onPool('DistributionBatchStarted', 26, { shareholder_count: 60, amount_for_shareholders: '1000000' }),
  onPool('DistributionCompleted', 27, { token: USDC, total_distributed: '995000' }),
  onPool('AllocationWithdrawn', 28, { shareholder: A, token: USDC, amount: '7000' }),
  onPool('RoundCreated', 29, {
    round_id: '1',
    token: USDC,
    total_amount: '99000000',
    claimable_from: T,
    expires_at: '2027-03-01T12:00:05.000Z',
    claimable_from_unix: '1772366405',
    expires_at_unix: '1803902405',
  }),
  onPool('ScheduledRoundTriggered', 30, { round_id: '2', token: USDC }),
  onPool('RoundClaimed', 31, { shareholder: A, round_id: '1', token: USDC, amount: '59400000' }),
  onPool('RoundReclaimed', 32, { round_id: '1', token: USDC, unclaimed: '9' }),
  {
    streamId: poolStreamId(NET, SAMPLE_POOL),
    type: 'RoundClaimAvailable',
    data: {
      network_id: NET,
      pool: SAMPLE_POOL,
      round_id: '1',
      token: USDC,
      total_amount: '99000000',
      claimable_from: T,
      expires_at: '2027-03-01T12:00:05.000Z',
      source_event_id: chainDomainEventId(NET, 'x', 0),
      observed_at: T,
    },
  },
  onCampaign('CampaignCreated', 33, {
    contract_version: 'g',
    admin: A,
    payment_token: USDC,
    price_per_share: '1000000',
    soft_cap_shares: '1000',
    hard_cap_shares: '5000',
    deadline: '2030-03-17T17:46:40.000Z',
    deadline_unix: '1900000000',
    payout_mode: 'escrow',
  }),
  onCampaign('CampaignContributed', 34, { investor: B, shares: '10', payment: '10000000', total_shares_sold: '110' }),
  onCampaign('CampaignOptedOut', 35, { investor: B, shares: '5', refund_amount: '5000000' }),
  onCampaign('CampaignFinalized', 36, { outcome: 'succeeded', status_code: 1, total_shares_sold: '1200', total_raised: '1200000000' }),
  onCampaign('CampaignActivationProposed', 37, { splitter: SAMPLE_POOL, eta: '2030-03-20T00:00:00.000Z', eta_unix: '1900281600' }),
  onCampaign('CampaignActivated', 38, { splitter: SAMPLE_POOL, total_raised: '1200000000', payout_mode: null }),
  onCampaign('CampaignActivationCancelled', 39, { splitter: SAMPLE_POOL }),
  onCampaign('CampaignRefunded', 40, { investor: B, shares: '10', refund_amount: '10000000' }),
  onCampaign('CampaignActivationExpired', 41, { total_shares_sold: '1200', total_raised: '1200000000' }),
  {
    streamId: campaignStreamId(NET, SAMPLE_CAMPAIGN),
    type: 'CampaignEffectivelyFailed',
    data: {
      network_id: NET,
      campaign: SAMPLE_CAMPAIGN,
      deadline: T,
      total_shares_sold: '10',
      soft_cap_shares: '1000',
      total_raised: '10000000',
      observed_at: T,
    },
  },
  {
    streamId: campaignStreamId(NET, SAMPLE_CAMPAIGN),
    type: 'PaymentTokenTransferred',
    data: { chain: chain(USDC, 42), token: USDC, party: SAMPLE_CAMPAIGN, from: B, to: SAMPLE_CAMPAIGN, amount: '10000000', asset: `USDC:${A}` },
  },
];

/** A sample as the event store would hand it out (position and revision made up, in list order). */
export function recordedSample(sample: Sample, n: number): RecordedEvent {
  return {
    id: chainDomainEventId(NET, `sample-${n}`, 0),
    streamId: sample.streamId,
    revision: n,
    type: sample.type,
    version: 1,
    data: sample.data,
    metadata: {},
    position: position(1000 + n, 1000 + n),
    recordedAt: new Date(T),
  };
}
