import { createReadQueries, type ReadQueries } from './queries/read-queries';
import { demoWorld, W } from './testing/demo-world';
import { readModelBackends, type ReadModelBackend } from './testing/read-model-backends';

describe.each(readModelBackends())('read models on $name', (factory) => {
  let b: ReadModelBackend;
  let q: ReadQueries;
  const world = demoWorld();
  const at = (now: Date) => createReadQueries({ reader: b.reader, now: () => now });

  beforeAll(async () => {
    b = await factory.open();
    await b.harness.append([...world.testnet.streamAppends(), ...world.mainnet.streamAppends()]);
    q = at(world.now);
  });
  afterAll(async () => {
    await b?.close();
  });

  it('projects pools with registry metadata, members and totals', async () => {
    const detail = await q.pools.detail(W.solar, 9);
    expect(detail).toMatchObject({
      address: W.solar,
      name: 'Solar Farm Alpha',
      ticker: 'SFA',
      network_id: 9,
      chain_name: 'Stellar Testnet',
      access_type: 'p',
      estimated_apr: 12.5,
      member_count: 3,
      total_shares: 1_000_000,
      creator_address: W.admin,
      total_distributed: '1500.00',
      allow_entry: true,
      distribution_config: { min_interval_seconds: 3600, claim_delay_seconds: 3600, round_expiry_seconds: 2678400 },
      pool_data: { access: 'p', estimated_apr: '12.5', token_to_distribute: 'USDC' },
    });
    const members = await q.poolActivity.members({ address: W.solar, networkId: 9, page: 1, limit: 20 });
    expect(members.items.map((m) => [m.user_address, m.shares, m.participation_percent])).toEqual([
      [W.alice, 600000, 60],
      [W.bob, 399960, 39.996],
      [W.carol, 40, 0.004],
    ]);
    expect(members.items.reduce((n, m) => n + m.shares, 0)).toBe(detail.total_shares);
  });

  it('asks for network_id when an address is on several networks, 404s an unknown one', async () => {
    await expect(q.pools.detail(W.solar)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('network_id') });
    await expect(q.pools.detail(W.hydro)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await q.pools.detail(W.solar, 10)).name).toBe('Solar Farm Alpha (mainnet)');
  });

  it('computes round status at query time and keeps V1 rounds without expiry', async () => {
    const rounds = await q.poolActivity.distributions({ address: W.solar, networkId: 9, page: 1, limit: 20 });
    expect(rounds.items.map((r) => [r.round_id, r.status, r.total_amount, r.total_claimed, r.claim_count, r.amount_per_share])).toEqual([
      [1, 'pending', '500.00', '0.00', 0, '0.0005'],
      [0, 'completed', '1000.00', '600.00', 1, '0.001'],
    ]);
    const later = at(new Date(world.now.getTime() + 40 * 86_400_000));
    const expired = await later.poolActivity.distributions({ address: W.solar, networkId: 9, status: 'expired', page: 1, limit: 20 });
    expect(expired.items.map((r) => r.round_id)).toEqual([1, 0]);
    const v1 = await q.poolActivity.distributions({ address: W.wind, page: 1, limit: 20 });
    expect(v1.items).toEqual([
      expect.objectContaining({
        round_id: 0,
        status: 'completed',
        total_amount: '100.00',
        total_claimed: '100.00',
        claim_count: 2,
        total_shares: 10000,
        expires_at: null,
      }),
    ]);
  });

  it('derives sale addresses, partial sales and stats', async () => {
    const all = await q.marketplace.listings({ page: 1, limit: 20, sort: 'created_desc', status: 'all' });
    expect(all.items.map((l) => [l.seller_address, l.status, l.shares_amount, l.total_price])).toEqual([
      [W.alice, 'cancelled', 50, '150.00'],
      [W.bob, 'active', 60, '150.00'],
    ]);
    expect(all.items[1]!.sale_address).toMatch(/^SALE_[0-9a-f]{32}$/);
    expect(all.items[1]).toMatchObject({ payment_token: 'USDC', payment_token_address: W.usdc, pool_name: 'Solar Farm Alpha', price_per_share: '2.50' });
    const stats = await q.marketplace.stats({ address: W.solar, networkId: 9 });
    expect(stats).toEqual({
      pool_address: W.solar,
      pool_name: 'Solar Farm Alpha',
      network_id: 9,
      floor_price: '2.50',
      highest_price: '2.50',
      payment_token: 'USDC',
      active_listings: 1,
      total_shares_listed: 60,
      volume_24h: '100.00',
      volume_7d: '100.00',
      volume_30d: '100.00',
      total_volume: '100.00',
      total_sales: 1,
    });
    const weekLater = at(new Date(world.now.getTime() + 2 * 86_400_000));
    expect(await weekLater.marketplace.stats({ address: W.solar, networkId: 9 })).toMatchObject({ volume_24h: '0.00', volume_7d: '100.00' });
  });

  it('lists crowdfunding with target, raised and progress; portfolio holdings with Dob fields', async () => {
    expect(await q.crowdfunding.list({ sort: 'deadline_asc', status: 'active' })).toEqual([
      expect.objectContaining({
        address: W.campaign,
        name: 'Sun Campaign',
        target_amount: '1000.00',
        raised_amount: '500.00',
        progress_percent: 50,
        contributor_count: 2,
        payment_token: 'USDC',
        is_active: true,
      }),
    ]);
    const holdings = await q.portfolio.holdings(W.bob);
    expect(holdings).toEqual([
      {
        pool_address: W.solar,
        pool_name: 'Solar Farm Alpha',
        pool_ticker: 'SFA',
        network_id: 9,
        chain_name: 'Stellar Testnet',
        shares: 399960,
        total_shares: 1000000,
        participation_percent: 39.996,
        distribution_token: 'USDC',
        total_earned: '0.00',
        unclaimed_amount: '399.96',
        unclaimed_rounds: 1,
        estimated_apr: 12.5,
        joined_at: expect.any(String),
      },
    ]);
    const erin = await q.portfolio.holdings(W.erin);
    expect(erin[0]).toMatchObject({ shares: 2500, total_earned: '25.00', unclaimed_amount: '0.00' });
    const d = await q.portfolio.distributions(W.bob);
    expect(d.claimable.map((c) => [c.round_id, c.estimated_amount])).toEqual([[0, '399.96']]);
    expect(d.upcoming.map((c) => [c.round_id, c.kind, c.estimated_amount])).toEqual([[1, 'pending_round', '199.98']]);
    const history = await q.portfolio.history(W.bob, { page: 1, limit: 20 });
    expect(history.items.map((e) => e.type)).toEqual(['contribution', 'shares_sold', 'listing_created']);
  });

  it('features pools by rule', async () => {
    expect((await q.featured.list({ networkId: 9 })).map((f) => [f.name, f.featured_reason])).toEqual([
      ['Solar Farm Alpha', 'Highest estimated APR'],
      ['Wind Coop', 'Most members'],
    ]);
  });
});
