import { ChainScenario, accountAddr, contractAddr } from './chain-scenario';

const USDC_UNIT = 10_000_000n; // 7 decimals
export const usdc = (n: number | string): string => ((BigInt(Math.round(Number(n) * 100)) * USDC_UNIT) / 100n).toString();

export const W = {
  usdc: contractAddr('usdc'),
  issuer: accountAddr('usdc-issuer'),
  alice: accountAddr('alice'),
  bob: accountAddr('bob'),
  carol: accountAddr('carol'),
  dave: accountAddr('dave'),
  erin: accountAddr('erin'),
  admin: accountAddr('admin'),
  admin2: accountAddr('admin2'),
  solar: contractAddr('pool-solar'),
  solarToken: contractAddr('pt-solar'),
  wind: contractAddr('pool-wind'),
  campaign: contractAddr('campaign-sun'),
  hydro: contractAddr('pool-hydro'),
};

export interface DemoWorld {
  readonly testnet: ChainScenario;
  readonly mainnet: ChainScenario;
  /** The clock queries should use: after every event, round 0 claimable, round 1 still pending. */
  readonly now: Date;
}

/**
 * A small but complete world: a V2 pool with rounds, claims, a partial sale and a cancelled listing; a V1 pool with
 * a push distribution and a withdrawal; a crowdfunding campaign; and the V2 pool's address also present on
 * mainnet (network_id ambiguity).
 */
export function demoWorld(): DemoWorld {
  const s = new ChainScenario(9);
  const pt = { pool: W.solar, token: W.solarToken };
  s.registry('PoolRegistered', W.solar, {
    name: 'Solar Farm Alpha',
    ticker: 'SFA',
    access_type: 'p',
    distribution_type: 'tr',
    estimated_apr: '12.5',
    max_participants: 100,
    token_to_distribute: 'USDC',
  });
  s.chain('PaymentTokenTransferred', W.usdc, { token: W.usdc, party: W.solar, from: W.issuer, to: W.solar, amount: usdc(5000), asset: `USDC:${W.issuer}` });
  s.chain('ParticipationTokenMinted', W.solarToken, { ...pt, admin: W.solar, to: W.alice, amount: '600000' });
  s.chain('ParticipationTokenMinted', W.solarToken, { ...pt, admin: W.solar, to: W.bob, amount: '400000' });
  s.chain('PoolInitialized', W.solar, {
    pool_version: '2',
    contract_version: '2',
    admin: W.admin,
    shares_len: 2,
    mutable: true,
    participation_token: W.solarToken,
    pool_type: 'reward',
    pool_type_code: 0,
  });
  s.chain('PoolDistributionConfigured', W.solar, { min_interval_seconds: '3600', claim_delay_seconds: '3600', round_expiry_seconds: '2678400' });
  s.advance(3600);
  const r0 = s.now;
  s.chain('RoundCreated', W.solar, roundFields(0, usdc(1000), r0, 3600, 2_678_400));
  s.advance(7200);
  s.chain('RoundClaimed', W.solar, { shareholder: W.alice, round_id: '0', token: W.usdc, amount: usdc(600) });
  s.chain('ListingCreated', W.solar, { pool: W.solar, seller: W.bob, shares_amount: '100', price_per_share: usdc(2.5), payment_token: W.usdc });
  s.chain('ListingCreated', W.solar, { pool: W.solar, seller: W.alice, shares_amount: '50', price_per_share: usdc(3), payment_token: W.usdc });
  s.chain('ListingCancelled', W.solar, { pool: W.solar, seller: W.alice });
  s.advance(60);
  s.chain('ListingSold', W.solar, {
    pool: W.solar,
    seller: W.bob,
    buyer: W.carol,
    shares_sold: '40',
    total_price: usdc(100),
    price_per_share: usdc(2.5),
    payment_token: W.usdc,
    shares_remaining: null,
  });
  s.chain('ParticipationTokenTransferred', W.solarToken, { ...pt, from: W.bob, to: W.carol, amount: '40' });
  s.chain('SharesTransferred', W.solar, { pool: W.solar, from: W.bob, to: W.carol, shares: '40', reason: 'marketplace_sale' });
  s.chain('PoolAdminChanged', W.solar, { previous_admin: W.admin, new_admin: W.admin2 });

  // V1 pool: shares move by SharesTransferred, rounds are push distributions.
  s.registry('PoolRegistered', W.wind, {
    name: 'Wind Coop',
    ticker: 'WND',
    access_type: 'rtj',
    distribution_type: 'bt',
    estimated_apr: '8',
    max_participants: 2,
    token_to_distribute: 'USDC',
  });
  s.chain('PoolInitialized', W.wind, {
    pool_version: '1',
    contract_version: '1.2',
    admin: W.admin,
    shares_len: 1,
    mutable: true,
    participation_token: null,
    pool_type: null,
    pool_type_code: null,
  });
  s.chain('SharesTransferred', W.wind, { pool: W.wind, from: null, to: W.dave, shares: '10000', reason: 'direct' });
  s.chain('SharesTransferred', W.wind, { pool: W.wind, from: W.dave, to: W.erin, shares: '2500', reason: 'direct' });
  s.chain('DistributionAllocated', W.wind, { shareholder: W.dave, token: W.usdc, amount: usdc(75) });
  s.chain('DistributionAllocated', W.wind, { shareholder: W.erin, token: W.usdc, amount: usdc(25) });
  s.chain('DistributionCompleted', W.wind, { token: W.usdc, total_distributed: usdc(100) });
  s.chain('AllocationWithdrawn', W.wind, { shareholder: W.erin, token: W.usdc, amount: usdc(25) });
  s.chain('PoolLocked', W.wind, {});

  // Crowdfunding campaign with its registry entry.
  s.registry('PoolRegistered', W.campaign, {
    name: 'Sun Campaign',
    ticker: 'SUN',
    access_type: 'p',
    distribution_type: 'tr',
    estimated_apr: null,
    max_participants: null,
    token_to_distribute: 'USDC',
  });
  const deadline = new Date(s.now.getTime() + 30 * 86_400_000);
  s.campaign('CampaignCreated', W.campaign, {
    contract_version: 'g',
    admin: W.admin,
    payment_token: W.usdc,
    price_per_share: usdc(1),
    soft_cap_shares: '1000',
    hard_cap_shares: '2000',
    deadline: deadline.toISOString(),
    deadline_unix: String(deadline.getTime() / 1000),
    payout_mode: 'escrow',
  });
  s.campaign('CampaignContributed', W.campaign, { investor: W.alice, shares: '300', payment: usdc(300), total_shares_sold: '300' });
  s.campaign('CampaignContributed', W.campaign, { investor: W.bob, shares: '200', payment: usdc(200), total_shares_sold: '500' });

  // Round 1 of Solar: created now, claimable in an hour (pending at `now`).
  s.advance(60);
  s.chain('RoundCreated', W.solar, roundFields(1, usdc(500), s.now, 3600, 2_678_400));
  const now = new Date(s.now.getTime() + 60_000);

  const m = new ChainScenario(10, new Date('2026-01-02T00:00:00Z'));
  m.registry('PoolRegistered', W.solar, {
    name: 'Solar Farm Alpha (mainnet)',
    ticker: 'SFA',
    access_type: 'p',
    distribution_type: 'tr',
    estimated_apr: '20',
    max_participants: 100,
    token_to_distribute: 'USDC',
  });
  m.chain('PoolInitialized', W.solar, {
    pool_version: '1',
    contract_version: '1.2',
    admin: W.admin,
    shares_len: 1,
    mutable: false,
    participation_token: null,
    pool_type: null,
    pool_type_code: null,
  });
  return { testnet: s, mainnet: m, now };
}

/** A V1 splitter's PoolInitialized fields: no participation token, the initial cap table in basis points. */
export function v1InitializedFields(admin: string, initialShares: readonly { shareholder: string; share: string }[]) {
  return {
    pool_version: '1',
    contract_version: '1.2',
    admin,
    shares_len: initialShares.length,
    mutable: true,
    participation_token: null,
    pool_type: null,
    pool_type_code: null,
    initial_shares: initialShares,
  };
}

export function roundFields(id: number, amount: string, createdAt: Date, delaySeconds: number, expirySeconds: number) {
  const from = new Date(createdAt.getTime() + delaySeconds * 1000);
  const expires = new Date(createdAt.getTime() + expirySeconds * 1000);
  return {
    round_id: String(id),
    token: W.usdc,
    total_amount: amount,
    claimable_from: from.toISOString(),
    expires_at: expires.toISOString(),
    claimable_from_unix: String(Math.floor(from.getTime() / 1000)),
    expires_at_unix: String(Math.floor(expires.getTime() / 1000)),
  };
}
