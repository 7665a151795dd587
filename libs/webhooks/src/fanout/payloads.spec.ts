import * as p from './payloads';
import { formatAmount, saleAddress } from '@dob/domain';

const POOL = 'CBUSYNQKASUYFWYC3M2GUEDMX4AIVWPALDBYJPNK6554BREHTGZ2IUNF';
const TOKEN = 'CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAITA4';
const ALICE = 'GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGO6V';
const BOB = 'GCYBJHXG4JRODEFRVXHFWDHRQQSEYYBM2P455ME3OGETCURTQJLZVX72';
const TX = 'ab'.repeat(32);
const chain = (contract = POOL) => ({
  network_id: 9,
  contract_id: contract,
  tx_hash: TX,
  ledger: 100,
  event_id: '0000000429496733696-0000000001',
  closed_at: '2026-03-01T12:00:00Z',
});
const pool: p.PoolLabel = { name: 'Solar Farm', ticker: 'SOLAR', accessType: 'p', distributionType: 'tr' };
const usdc: p.TokenLabel = { symbol: 'USDC', decimals: 7 };

// docs/agent-api.md#webhook-payloads, verbatim order.
const SPEC_FIELDS: Record<string, string[]> = {
  distribution_created: ['pool_address', 'pool_name', 'network_id', 'round_id', 'token', 'total_amount', 'total_shares', 'claimable_from', 'expires_at'],
  claim_available: ['pool_address', 'pool_name', 'network_id', 'round_id', 'token', 'total_amount', 'amount_per_share', 'expires_at'],
  shares_transferred: ['pool_address', 'pool_name', 'network_id', 'from_address', 'to_address', 'shares', 'transaction_hash'],
  pool_created: ['pool_address', 'pool_name', 'pool_ticker', 'network_id', 'creator_address', 'access_type', 'distribution_type'],
  marketplace_listing_created: [
    'sale_address',
    'pool_address',
    'pool_name',
    'network_id',
    'seller_address',
    'shares_amount',
    'price_per_share',
    'payment_token',
  ],
  marketplace_sale_completed: [
    'sale_address',
    'pool_address',
    'pool_name',
    'network_id',
    'seller_address',
    'buyer_address',
    'shares',
    'price_per_share',
    'total_price',
    'payment_token',
    'transaction_hash',
  ],
  crowdfunding_finalized: ['pool_address', 'pool_name', 'network_id', 'total_raised', 'target_amount', 'contributor_count', 'payment_token'],
  crowdfunding_failed: ['pool_address', 'pool_name', 'network_id', 'total_raised', 'target_amount', 'contributor_count', 'refund_status'],
};

const expectShape = (n: p.Notification | null) => {
  expect(n).not.toBeNull();
  expect(Object.keys(n!.data)).toEqual(SPEC_FIELDS[n!.event]);
};

describe('webhook payload mapping', () => {
  it('formats money like the read API and derives sale addresses deterministically', () => {
    expect(formatAmount(125_000_000n, 7)).toBe('12.50');
    expect(formatAmount(1n, 7)).toBe('0.0000001');
    expect(formatAmount('0', 7)).toBe('0.00');
    expect(formatAmount(-15_000_000n, 7)).toBe('-1.50');
    expect(saleAddress(9, POOL, ALICE, 'x')).toMatch(/^SALE_[0-9a-f]{32}$/);
    expect(saleAddress(9, POOL, ALICE, 'x')).toBe(saleAddress(9, POOL, ALICE, 'x'));
    expect(saleAddress(9, POOL, ALICE, 'y')).not.toBe(saleAddress(9, POOL, ALICE, 'x'));
  });

  it('distribution_created from a V2 round', () => {
    const n = p.distributionCreated(
      {
        chain: chain(),
        round_id: '3',
        token: TOKEN,
        total_amount: '50000000000',
        claimable_from: '2026-03-02T12:00:00Z',
        expires_at: '2026-04-01T12:00:00Z',
        claimable_from_unix: '1772452800',
        expires_at_unix: '1775044800',
      },
      { pool, token: usdc, totalShares: 1000n },
    );
    expectShape(n);
    expect(n).toEqual({
      event: 'distribution_created',
      timestamp: '2026-03-01T12:00:00Z',
      data: {
        pool_address: POOL,
        pool_name: 'Solar Farm',
        network_id: 9,
        round_id: 3,
        token: 'USDC',
        total_amount: '5000.00',
        total_shares: 1000,
        claimable_from: '2026-03-02T12:00:00Z',
        expires_at: '2026-04-01T12:00:00Z',
      },
    });
  });

  it('distribution_created from a V1 dist_all: claimable at once, no expiry', () => {
    const n = p.distributionCreatedV1({ chain: chain(), token: TOKEN, total_distributed: '10000000' }, { pool, token: usdc, totalShares: 10_000n, roundId: 2 });
    expectShape(n);
    expect(n.data).toMatchObject({ round_id: 2, total_amount: '1.00', total_shares: 10000, claimable_from: '2026-03-01T12:00:00Z', expires_at: null });
  });

  it('claim_available with amount_per_share = floor(total / shares)', () => {
    const n = p.claimAvailable(
      {
        network_id: 9,
        pool: POOL,
        round_id: '3',
        token: TOKEN,
        total_amount: '1000000000',
        claimable_from: '2026-03-02T12:00:00Z',
        expires_at: '2026-04-01T12:00:00Z',
        source_event_id: 'x',
        observed_at: '2026-03-02T12:00:05Z',
      },
      { pool, token: usdc, totalShares: 3n },
    );
    expectShape(n);
    expect(n.data).toMatchObject({ total_amount: '100.00', amount_per_share: '33.3333333', round_id: 3 });
    expect(n.timestamp).toBe('2026-03-02T12:00:05Z');
  });

  it('shares_transferred for direct transfers only', () => {
    const base = { chain: chain(), pool: POOL, from: ALICE, to: BOB, shares: '250' };
    const n = p.sharesTransferred({ ...base, reason: 'direct' }, { pool });
    expectShape(n);
    expect(n!.data).toEqual({
      pool_address: POOL,
      pool_name: 'Solar Farm',
      network_id: 9,
      from_address: ALICE,
      to_address: BOB,
      shares: 250,
      transaction_hash: TX,
    });
    expect(p.sharesTransferred({ ...base, reason: 'marketplace_sale' }, { pool })).toBeNull();
    expect(p.sharesTransferred({ ...base, reason: 'crowdfunding_allocation' }, { pool })).toBeNull();
  });

  it('pool_created from the first init, with registry metadata (null when unregistered)', () => {
    const init = {
      chain: chain(),
      pool_version: '2' as const,
      contract_version: '2',
      admin: ALICE,
      shares_len: 2,
      mutable: true,
      participation_token: null,
      pool_type: 'reward' as const,
      pool_type_code: 0,
    };
    const n = p.poolCreated(init, { pool });
    expectShape(n);
    expect(n.data).toEqual({
      pool_address: POOL,
      pool_name: 'Solar Farm',
      pool_ticker: 'SOLAR',
      network_id: 9,
      creator_address: ALICE,
      access_type: 'p',
      distribution_type: 'tr',
    });
    expect(p.poolCreated(init, { pool: p.UNKNOWN_POOL }).data).toMatchObject({ pool_name: null, pool_ticker: null });
  });

  it('marketplace_listing_created and marketplace_sale_completed carry the same sale_address', () => {
    const sale = saleAddress(9, POOL, ALICE, chain().event_id);
    const listed = p.listingCreated(
      { chain: chain(), pool: POOL, seller: ALICE, shares_amount: '40', price_per_share: '25000000', payment_token: TOKEN },
      { pool, token: usdc, saleAddress: sale },
    );
    expectShape(listed);
    expect(listed.data).toMatchObject({ sale_address: sale, shares_amount: 40, price_per_share: '2.50', payment_token: 'USDC', seller_address: ALICE });
    const sold = p.saleCompleted(
      {
        chain: { ...chain(), tx_hash: 'cd'.repeat(32) },
        pool: POOL,
        seller: ALICE,
        buyer: BOB,
        shares_sold: '10',
        total_price: '250000000',
        price_per_share: null,
        payment_token: TOKEN,
        shares_remaining: null,
      },
      { pool, token: usdc, saleAddress: sale },
    );
    expectShape(sold);
    expect(sold.data).toEqual({
      sale_address: sale,
      pool_address: POOL,
      pool_name: 'Solar Farm',
      network_id: 9,
      seller_address: ALICE,
      buyer_address: BOB,
      shares: 10,
      price_per_share: '2.50',
      total_price: '25.00',
      payment_token: 'USDC',
      transaction_hash: 'cd'.repeat(32),
    });
  });

  it('crowdfunding_finalized and crowdfunding_failed', () => {
    const figures = { pool, token: usdc, targetAmount: 1_000_000_000n, contributorCount: 4 };
    const fin = p.crowdfundingFinalized(
      { chain: chain(), outcome: 'succeeded', status_code: 1, total_shares_sold: '100', total_raised: '1200000000' },
      figures,
    );
    expectShape(fin);
    expect(fin.data).toMatchObject({ total_raised: '120.00', target_amount: '100.00', contributor_count: 4, payment_token: 'USDC' });
    const failed = p.crowdfundingFailed({ networkId: 9, campaign: POOL, totalRaised: '30000000', at: '2026-03-05T00:00:00Z' }, figures);
    expectShape(failed);
    expect(failed.data).toMatchObject({ total_raised: '3.00', refund_status: 'processing', contributor_count: 4 });
  });
});

describe('webhook event names', () => {
  it('are the keys of the payload declarations, in the order the API documents them', () => {
    expect(p.WEBHOOK_EVENTS).toEqual([
      'distribution_created',
      'claim_available',
      'shares_transferred',
      'pool_created',
      'marketplace_listing_created',
      'marketplace_sale_completed',
      'crowdfunding_finalized',
      'crowdfunding_failed',
    ]);
  });
});
