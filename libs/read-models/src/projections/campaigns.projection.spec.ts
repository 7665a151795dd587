import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import { ALICE, BOB, CAMPAIGN, chainAt, offChain, onChain, TOKEN } from '../testing/spec-events';
import { campaignsProjection } from './campaigns.projection';

const spec = ProjectionSpec.for(campaignsProjection);
const deadline = '2026-02-01T00:00:00.000Z';
const created = onChain(
  1,
  'CampaignCreated',
  {
    contract_version: 'g',
    admin: ALICE,
    payment_token: TOKEN,
    price_per_share: '10000000',
    soft_cap_shares: '100',
    hard_cap_shares: '200',
    deadline,
    deadline_unix: String(Date.parse(deadline) / 1000),
    payout_mode: 'escrow',
  },
  CAMPAIGN,
);
const campaign = {
  network_id: 9,
  address: CAMPAIGN,
  admin: ALICE,
  payment_token: TOKEN,
  price_per_share: 10_000_000n,
  soft_cap_shares: 100n,
  hard_cap_shares: 200n,
  deadline,
  total_shares_sold: 0n,
  total_raised: 0n,
  status: 'fundraising',
  splitter: null,
  created_at: chainAt(1).closed_at,
};
const contributed = (n: number, shares: number, soldAfter: number) =>
  onChain(
    n,
    'CampaignContributed',
    { investor: BOB, shares: String(shares), payment: String(shares * 10_000_000), total_shares_sold: String(soldAfter) },
    CAMPAIGN,
  );
const bob = (shares: bigint, paid: bigint, refunded = 0n) => ({ network_id: 9, campaign: CAMPAIGN, investor: BOB, shares, paid, refunded });

describe('campaigns projection', () => {
  it('given nothing, when a campaign is created, then it is fundraising with nothing raised', async () => {
    await spec
      .given()
      .when(created)
      .then({ campaigns: [campaign], contributors: [] });
  });

  it('given a campaign, when an investor contributes twice, then raised and the contributor add up', async () => {
    await spec
      .given(created, contributed(2, 30, 30))
      .when(contributed(3, 20, 50))
      .then({ campaigns: [{ ...campaign, total_shares_sold: 50n, total_raised: 500_000_000n }], contributors: [bob(50n, 500_000_000n)] });
  });

  it('given a contribution, when the investor opts out, then raised and shares go back down', async () => {
    await spec
      .given(created, contributed(2, 30, 30))
      .when(onChain(3, 'CampaignOptedOut', { investor: BOB, shares: '30', refund_amount: '300000000' }, CAMPAIGN))
      .then({ campaigns: [{ ...campaign, total_shares_sold: 0n, total_raised: 0n }], contributors: [bob(0n, 0n)] });
  });

  it('given a failed campaign, when the investor is refunded, then the refund is recorded and raised does not change', async () => {
    const failed = onChain(3, 'CampaignFinalized', { outcome: 'failed', status_code: 2, total_shares_sold: '30', total_raised: '300000000' }, CAMPAIGN);
    await spec
      .given(created, contributed(2, 30, 30), failed)
      .when(onChain(4, 'CampaignRefunded', { investor: BOB, shares: '30', refund_amount: '300000000' }, CAMPAIGN))
      .then({
        campaigns: [{ ...campaign, status: 'failed', total_shares_sold: 30n, total_raised: 300_000_000n }],
        contributors: [bob(30n, 300_000_000n, 300_000_000n)],
      });
  });

  it('given a fundraising campaign past its deadline, when the scheduler sees it failed, then it is failed', async () => {
    const effectivelyFailed = offChain('CampaignEffectivelyFailed', {
      network_id: 9,
      campaign: CAMPAIGN,
      deadline,
      total_shares_sold: '0',
      soft_cap_shares: '100',
      total_raised: '0',
      observed_at: '2026-02-01T00:00:05.000Z',
    });
    await spec
      .given(created)
      .when(effectivelyFailed)
      .then({ campaigns: [{ ...campaign, status: 'failed' }] });
  });

  it('given nothing, when an unknown campaign is contributed to, then no campaign is invented (the contributor row is kept)', async () => {
    await spec
      .given()
      .when(contributed(2, 30, 30))
      .then({ campaigns: [], contributors: [bob(30n, 300_000_000n)] });
  });
});
