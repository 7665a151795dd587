import { ChainScenario, accountAddr, contractAddr } from './chain-scenario';
import { roundFields, usdc, v1InitializedFields } from './demo-world';

/**
 * A history touching every read model and every event the projections handle, `groups` times over with distinct
 * addresses: V2 pools (PT mints, transfers and burns, config, schedule, rounds, claims, reclaims, listings created,
 * partly sold, re-listed and cancelled), V1 pools (initial cap table, transfers, push distributions, withdrawals,
 * an update_shares replacement, lock), campaigns (contributions, opt-outs, refunds, finalisation, activation) and
 * token symbols. Events interleave across groups, so batches mix projections' documents. The same addresses on
 * another network id make the network_id ambiguity cases. Test and benchmark support (exactly-once under SIGKILL,
 * store comparisons, rebuild throughput).
 */
export function busyWorld(groups: number, networkId = 9): ChainScenario {
  const s = new ChainScenario(networkId, new Date('2026-01-01T00:00:00Z'));
  const token = contractAddr('usdc');
  const issuer = accountAddr('usdc-issuer');
  const admin = accountAddr('admin');
  const holder = (g: number, h: number) => accountAddr(`busy-${g}-holder-${h}`);
  for (let g = 0; g < groups; g++) {
    const v2 = contractAddr(`busy-v2-${g}`);
    const pt = { pool: v2, token: contractAddr(`busy-pt-${g}`) };
    const v1 = contractAddr(`busy-v1-${g}`);
    const campaign = contractAddr(`busy-cf-${g}`);
    s.registry('PoolRegistered', v2, {
      name: `Busy Solar ${g}`,
      ticker: `BS${g}`,
      access_type: ['p', 'rtj', 'qr', 'stk'][g % 4],
      distribution_type: 'tr',
      estimated_apr: g % 5 === 0 ? null : `${g % 17}.${g % 3}0`,
      max_participants: g % 3 === 0 ? 3 : 100,
      token_to_distribute: token,
    });
    s.chain('PaymentTokenTransferred', token, { token, party: v2, from: issuer, to: v2, amount: usdc(1000 + g), asset: `USDC:${issuer}` });
    for (let h = 0; h < 3; h++) s.chain('ParticipationTokenMinted', pt.token, { ...pt, admin: v2, to: holder(g, h), amount: String(100_000 * (h + 1) + g) });
    s.chain('PoolInitialized', v2, {
      pool_version: '2',
      contract_version: '2',
      admin,
      shares_len: 3,
      mutable: g % 4 !== 1,
      participation_token: pt.token,
      pool_type: 'reward',
      pool_type_code: 0,
    });
    s.chain('PoolDistributionConfigured', v2, { min_interval_seconds: '3600', claim_delay_seconds: String(600 * (g % 3)), round_expiry_seconds: '86400' });
    s.chain('PoolScheduleSet', v2, {
      first_distribution_time: String(Math.floor(s.now.getTime() / 1000) + 86_400),
      interval_seconds: '604800',
      total_distributions: g % 2 ? 0 : 12,
    });
    s.advance(600);
    s.chain('RoundCreated', v2, roundFields(0, usdc(300 + g), s.now, 600 * (g % 3), 86_400));
    s.advance(1200);
    s.chain('RoundClaimed', v2, { shareholder: holder(g, 0), round_id: '0', token, amount: usdc(50) });
    s.chain('ListingCreated', v2, {
      pool: v2,
      seller: holder(g, 1),
      shares_amount: String(500 + g),
      price_per_share: usdc(1 + (g % 7) / 4),
      payment_token: token,
    });
    s.chain('ListingCreated', v2, { pool: v2, seller: holder(g, 2), shares_amount: '80', price_per_share: usdc(2), payment_token: token });
    s.chain('ListingSold', v2, {
      pool: v2,
      seller: holder(g, 1),
      buyer: holder(g, 0),
      shares_sold: '20',
      total_price: usdc(20 * (1 + (g % 7) / 4)),
      price_per_share: usdc(1 + (g % 7) / 4),
      payment_token: token,
      shares_remaining: null,
    });
    s.chain('ParticipationTokenTransferred', pt.token, { ...pt, from: holder(g, 1), to: holder(g, 0), amount: '20' });
    s.chain('SharesTransferred', v2, { pool: v2, from: holder(g, 1), to: holder(g, 0), shares: '20', reason: 'marketplace_sale' });
    s.chain('ListingCreated', v2, { pool: v2, seller: holder(g, 2), shares_amount: '60', price_per_share: usdc(2.5), payment_token: token }); // re-list
    if (g % 2) s.chain('ListingCancelled', v2, { pool: v2, seller: holder(g, 2) });
    s.chain('ParticipationTokenBurned', pt.token, { ...pt, from: holder(g, 2), amount: '10' });
    if (g % 3 === 2) s.chain('PoolAdminChanged', v2, { previous_admin: admin, new_admin: accountAddr(`busy-admin-${g}`) });
    s.advance(90_000);
    s.chain('RoundReclaimed', v2, { round_id: '0', token, unclaimed: usdc(10) });
    s.chain('RoundCreated', v2, roundFields(1, usdc(120), s.now, 3600, 86_400));

    s.registry('PoolRegistered', v1, {
      name: `Busy Wind ${g}`,
      ticker: `BW${g}`,
      access_type: 'rtj',
      distribution_type: 'bt',
      estimated_apr: String(g % 9),
      max_participants: null,
      token_to_distribute: 'USDC',
    });
    s.chain(
      'PoolInitialized',
      v1,
      v1InitializedFields(admin, [
        { shareholder: holder(g, 3), share: '6000' },
        { shareholder: holder(g, 4), share: '4000' },
      ]),
    );
    s.chain('SharesTransferred', v1, { pool: v1, from: holder(g, 3), to: holder(g, 5), shares: '1000', reason: 'direct' });
    s.chain('DistributionAllocated', v1, { shareholder: holder(g, 3), token, amount: usdc(50) });
    s.chain('DistributionAllocated', v1, { shareholder: holder(g, 4), token, amount: usdc(40) });
    s.chain('DistributionAllocated', v1, { shareholder: holder(g, 5), token, amount: usdc(10) });
    s.chain('DistributionCompleted', v1, { token, total_distributed: usdc(100) });
    s.chain('AllocationWithdrawn', v1, { shareholder: holder(g, 4), token, amount: usdc(40) });
    s.chain('ShareTableUpdated', v1, {
      shareholder_count: 2,
      shares: [
        { shareholder: holder(g, 3), share: '7000' },
        { shareholder: holder(g, 5), share: '3000' },
      ],
    });
    s.chain('DistributionAllocated', v1, { shareholder: holder(g, 3), token, amount: usdc(7) });
    s.chain('DistributionCompleted', v1, { token, total_distributed: usdc(7) });
    if (g % 2 === 0) s.chain('PoolLocked', v1, {});

    const deadline = new Date(s.now.getTime() + (g % 4 === 3 ? -1 : 20) * 86_400_000);
    s.campaign('CampaignCreated', campaign, {
      contract_version: 'g',
      admin,
      payment_token: token,
      price_per_share: usdc(1),
      soft_cap_shares: String(1000 + g),
      hard_cap_shares: '5000',
      deadline: deadline.toISOString(),
      deadline_unix: String(Math.floor(deadline.getTime() / 1000)),
      payout_mode: 'escrow',
    });
    s.campaign('CampaignContributed', campaign, { investor: holder(g, 0), shares: '300', payment: usdc(300), total_shares_sold: '300' });
    s.campaign('CampaignContributed', campaign, {
      investor: holder(g, 1),
      shares: String(200 + g),
      payment: usdc(200 + g),
      total_shares_sold: String(500 + g),
    });
    if (g % 3 === 0) s.campaign('CampaignOptedOut', campaign, { investor: holder(g, 1), shares: '50', refund_amount: usdc(50) });
    if (g % 4 === 2) s.campaign('CampaignFinalized', campaign, { outcome: 'failed', status_code: 2, total_shares_sold: '300', total_raised: usdc(300) });
    if (g % 4 === 2) s.campaign('CampaignRefunded', campaign, { investor: holder(g, 0), shares: '300', refund_amount: usdc(300) });
    if (g % 4 === 1) {
      const eta = new Date(s.now.getTime() + 3_600_000);
      s.campaign('CampaignActivationProposed', campaign, { splitter: v2, eta: eta.toISOString(), eta_unix: String(Math.floor(eta.getTime() / 1000)) });
      s.campaign('CampaignActivated', campaign, { splitter: v2, total_raised: usdc(500 + g), payout_mode: 'escrow' });
    }
    s.chain('PaymentTokenTransferred', token, { token, party: v1, from: issuer, to: v1, amount: usdc(5), asset: `USDC:${issuer}` });
  }
  return s;
}
