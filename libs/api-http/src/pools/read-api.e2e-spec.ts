import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { contractAddr } from '../../../../libs/read-models/src/testing/chain-scenario';
import { W, demoWorld } from '../../../../libs/read-models/src/testing/demo-world';
import { readModelBackends, type ReadModelBackend } from '../../../../libs/read-models/src/testing/read-model-backends';
import type { ReadModelHarness } from '../../../../libs/read-models/src/testing/read-model-harness';
import { startReadApi, type ReadApi } from '../testing/read-api-harness';

/**
 * The read API through HTTP (app.inject) over read models filled by the real projection runner from catalog
 * events, with the read models on embedded PGlite and on MongoDB (FerretDB). Clock: the world's "now".
 */
describe.each(readModelBackends().filter((b) => b.name !== 'postgres'))('read API (e2e over read models on $name)', (backend) => {
  const world = demoWorld();
  let api: ReadApi;
  let b: ReadModelBackend;
  let h: ReadModelHarness;
  let app: NestFastifyApplication;
  const keys: Record<string, string> = {};
  const get = (url: string, key = keys.bob!) => api.get(url, key);

  beforeAll(async () => {
    api = await startReadApi(backend, [...world.testnet.streamAppends(), ...world.mainnet.streamAppends()], world.now);
    ({ backend: b, app } = api);
    h = b.harness;
    keys.bob = await api.register('bob');
    keys.erin = await api.register('erin');
  });
  afterAll(async () => {
    await api?.close();
  });

  it('refuses calls without an API key', async () => {
    const r = await get('/pools', '');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('MISSING_API_KEY');
  });

  it('lists pools with Dob fields, meta, filters, sorts and page boundaries', async () => {
    const r = await get('/pools');
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ page: 1, limit: 20, total: 4 });
    expect(r.body.data.map((p: { name: string }) => p.name)).toEqual(['Solar Farm Alpha (mainnet)', 'Sun Campaign', 'Wind Coop', 'Solar Farm Alpha']);
    expect(r.body.data[3]).toEqual({
      address: W.solar,
      name: 'Solar Farm Alpha',
      ticker: 'SFA',
      network_id: 9,
      chain_name: 'Stellar Testnet',
      access_type: 'p',
      distribution_type: 'tr',
      estimated_apr: 12.5,
      member_count: 3,
      max_participants: 100,
      token_to_distribute: 'USDC',
      pool_data: { name: 'Solar Farm Alpha', ticker: 'SFA', max_participants: 100, access: 'p', distribution_type: 'tr', estimated_apr: '12.5' },
      created_at: expect.stringMatching(/^2026-01-01T\d\d:\d\d:\d\dZ$/),
    });
    const names = async (qs: string) => (await get(`/pools?${qs}`)).body.data.map((p: { name: string }) => p.name);
    expect(await names('search=wind')).toEqual(['Wind Coop']);
    expect(await names('search=sfa&network_id=9')).toEqual(['Solar Farm Alpha']);
    expect(await names('access_type=rtj')).toEqual(['Wind Coop']);
    expect(await names('sort=apr_desc')).toEqual(['Solar Farm Alpha (mainnet)', 'Solar Farm Alpha', 'Wind Coop', 'Sun Campaign']);
    expect(await names('sort=apr_asc')).toEqual(['Wind Coop', 'Solar Farm Alpha', 'Solar Farm Alpha (mainnet)', 'Sun Campaign']);
    expect(await names('sort=members_desc&network_id=9')).toEqual(['Solar Farm Alpha', 'Wind Coop', 'Sun Campaign']);
    expect(await names('sort=members_asc&network_id=9')).toEqual(['Sun Campaign', 'Wind Coop', 'Solar Farm Alpha']);
    expect(await names('sort=created_asc')).toEqual(['Solar Farm Alpha', 'Wind Coop', 'Sun Campaign', 'Solar Farm Alpha (mainnet)']);
    const p2 = await get('/pools?limit=3&page=2');
    expect(p2.body.meta).toEqual({ page: 2, limit: 3, total: 4 });
    expect(p2.body.data).toHaveLength(1);
    const beyond = await get('/pools?limit=100&page=9');
    expect(beyond.body).toEqual({ success: true, data: [], meta: { page: 9, limit: 100, total: 4 } });
  });

  it('serves featured and crowdfunding pools', async () => {
    await b.setFeatured({ networkId: 9, address: W.campaign, reason: 'Editor’s pick', position: 0 });
    const f = await get('/pools/featured?network_id=9');
    expect(f.body.data.map((x: { name: string; featured_reason: string }) => [x.name, x.featured_reason])).toEqual([
      ['Sun Campaign', 'Editor’s pick'],
      ['Solar Farm Alpha', 'Highest estimated APR'],
      ['Wind Coop', 'Most members'],
    ]);
    expect(f.body.meta).toBeUndefined();
    const c = await get('/pools/crowdfunding?sort=progress_desc');
    expect(c.body.data).toEqual([
      {
        address: W.campaign,
        name: 'Sun Campaign',
        ticker: 'SUN',
        network_id: 9,
        target_amount: '1000.00',
        raised_amount: '500.00',
        progress_percent: 50,
        contributor_count: 2,
        deadline: expect.any(String),
        payment_token: 'USDC',
        is_active: true,
      },
    ]);
  });

  it('serves pool detail, members, distributions and events; asks for network_id when ambiguous', async () => {
    const amb = await get(`/pools/${W.solar}`);
    expect(amb.status).toBe(400);
    expect(amb.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('network_id') });
    const d = await get(`/pools/${W.solar}?network_id=9`);
    expect(d.body.data).toMatchObject({
      total_shares: 1000000,
      total_distributed: '1500.00',
      allow_entry: true,
      creator_address: W.admin,
      next_distribution: null,
    });
    expect(d.body.data.pool_data).toMatchObject({ way_to_access: 'Users buy shares directly (marketplace or crowdfunding)', token_to_distribute: 'USDC' });
    expect((await get(`/pools/${W.hydro}`)).status).toBe(404);
    const m = await get(`/pools/${W.solar}/members?network_id=9&limit=2`);
    expect(m.body.meta).toEqual({ page: 1, limit: 2, total: 3 });
    expect(m.body.data[0]).toEqual({ user_address: W.alice, shares: 600000, participation_percent: 60, joined_at: expect.any(String) });
    const rounds = await get(`/pools/${W.solar}/distributions?network_id=9&status=pending`);
    expect(rounds.body.data).toEqual([
      expect.objectContaining({ round_id: 1, token: 'USDC', total_amount: '500.00', status: 'pending', amount_per_share: '0.0005' }),
    ]);
    expect(rounds.body.meta.total).toBe(1);
    const ev = await get(`/pools/${W.solar}/events?network_id=9&event_type=transfer_shares`);
    expect(ev.body.data).toEqual([
      {
        event_type: 'transfer_shares',
        pool_id: W.solar,
        transaction_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        from_address: W.bob,
        to_address: W.carol,
        amount: '40',
        date: expect.any(String),
        description: `${W.bob} transferred 40 shares to ${W.carol} (marketplace sale)`,
      },
    ]);
    const all = await get(`/pools/${W.solar}/events?network_id=9`);
    expect(all.body.data.map((e: { event_type: string }) => e.event_type)).toEqual([
      'distribute',
      'set_admin',
      'transfer_shares',
      'claim',
      'distribute',
      'init',
    ]);
  });

  it('serves marketplace listings, per-pool listings and stats', async () => {
    const l = await get('/marketplace/listings');
    expect(l.body.meta).toEqual({ page: 1, limit: 20, total: 1 });
    expect(l.body.data[0]).toEqual({
      sale_address: expect.stringMatching(/^SALE_[0-9a-f]{32}$/),
      pool_address: W.solar,
      pool_name: 'Solar Farm Alpha',
      pool_ticker: 'SFA',
      network_id: 9,
      seller_address: W.bob,
      shares_amount: 60,
      price_per_share: '2.50',
      total_price: '150.00',
      payment_token: 'USDC',
      payment_token_address: W.usdc,
      is_active: true,
      status: 'active',
      created_at: expect.any(String),
    });
    expect((await get('/marketplace/listings?status=all&sort=price_desc')).body.data.map((x: { price_per_share: string }) => x.price_per_share)).toEqual([
      '3.00',
      '2.50',
    ]);
    expect((await get('/marketplace/listings?payment_token=usdc')).body.meta.total).toBe(1);
    expect((await get('/marketplace/listings?payment_token=XLM')).body.meta.total).toBe(0);
    const per = await get(`/marketplace/listings/${W.solar}?network_id=9&status=all&sort=created_desc`);
    expect(Object.keys(per.body.data[0]).sort()).toEqual([
      'created_at',
      'is_active',
      'payment_token',
      'price_per_share',
      'sale_address',
      'seller_address',
      'shares_amount',
      'status',
      'total_price',
    ]);
    expect(per.body.data.map((x: { status: string }) => x.status)).toEqual(['cancelled', 'active']);
    const s = await get(`/marketplace/stats/${W.solar}?network_id=9`);
    expect(s.body.data).toMatchObject({
      floor_price: '2.50',
      active_listings: 1,
      total_shares_listed: 60,
      volume_24h: '100.00',
      total_volume: '100.00',
      total_sales: 1,
    });
  });

  it("serves the key wallet's portfolio", async () => {
    const holdings = await get('/portfolio/holdings');
    expect(holdings.body.data).toEqual([expect.objectContaining({ pool_address: W.solar, shares: 399960, unclaimed_amount: '399.96', unclaimed_rounds: 1 })]);
    expect(holdings.body.meta).toBeUndefined();
    const pos = await get(`/portfolio/positions/${W.solar}?network_id=9`);
    expect(pos.body.data).toMatchObject({
      shares: 399960,
      active_listing: { seller_address: W.bob, shares_amount: 60 },
      claimable_rounds: [{ round_id: 0, estimated_amount: '399.96' }],
    });
    expect((await get(`/portfolio/positions/${W.wind}`)).status).toBe(404);
    const listings = await get('/portfolio/listings');
    expect(listings.body.data.map((x: { seller_address: string }) => x.seller_address)).toEqual([W.bob]);
    const d = await get('/portfolio/distributions');
    expect(d.body.data.claimable.map((x: { round_id: number }) => x.round_id)).toEqual([0]);
    expect(d.body.data.upcoming.map((x: { round_id: number }) => x.round_id)).toEqual([1]);
    const hist = await get('/portfolio/history?type=contribution');
    expect(hist.body.data).toEqual([
      expect.objectContaining({ type: 'contribution', pool_address: W.campaign, pool_name: 'Sun Campaign', amount: '200.00', token: 'USDC', shares: 200 }),
    ]);
    const erin = await get('/portfolio/holdings', keys.erin);
    expect(erin.body.data).toEqual([expect.objectContaining({ pool_address: W.wind, shares: 2500, total_shares: 10000, total_earned: '25.00' })]);
  });

  it.each([
    ['/pools?limit=101', 'limit'],
    ['/pools?limit=0', 'limit'],
    ['/pools?page=0', 'page'],
    ['/pools?page=abc', 'page'],
    ['/pools?network_id=1.5', 'network_id'],
    ['/pools?network_id=nine', 'network_id'],
    ['/pools?sort=name_asc', 'sort'],
    ['/pools?access_type=vip', 'access_type'],
    ['/pools?unknown=1', 'unknown'],
    ['/pools/crowdfunding?sort=progress_asc', 'sort'],
    ['/pools/featured?network_id=x', 'network_id'],
    ['/pools/CBADADDRESS', 'address'],
    [`/pools/${W.alice}`, 'address'],
    [`/pools/${W.solar}/distributions?network_id=9&status=open`, 'status'],
    [`/pools/${W.solar}/events?network_id=9&event_type=mint`, 'event_type'],
    [`/pools/${W.solar}/members?network_id=9&limit=500`, 'limit'],
    ['/marketplace/listings?sort=cheapest', 'sort'],
    ['/marketplace/listings?status=open', 'status'],
    [`/marketplace/listings/${W.solar}?sort=created_asc`, 'sort'],
    ['/marketplace/stats/not-an-address', 'poolAddress'],
    ['/portfolio/history?type=nope', 'type'],
    ['/portfolio/positions/GABC', 'poolAddress'],
  ])('GET %s → 400 VALIDATION_ERROR naming %s', async (url, param) => {
    const r = await get(url);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.message).toContain(param);
  });

  it('answers 404 for unknown pools on every pool-scoped route', async () => {
    const ghost = contractAddr('ghost');
    for (const url of [
      `/pools/${ghost}`,
      `/pools/${ghost}/members`,
      `/pools/${ghost}/distributions`,
      `/pools/${ghost}/events`,
      `/marketplace/listings/${ghost}`,
      `/marketplace/stats/${ghost}`,
    ]) {
      const r = await get(url);
      expect([url, r.status, r.body.error?.code]).toEqual([url, 404, 'NOT_FOUND']);
    }
  });

  it('documents every read endpoint in the OpenAPI document', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/api/agent/openapi.json' })).json();
    for (const path of [
      '/api/agent/pools',
      '/api/agent/pools/featured',
      '/api/agent/pools/crowdfunding',
      '/api/agent/pools/{address}',
      '/api/agent/pools/{address}/members',
      '/api/agent/pools/{address}/distributions',
      '/api/agent/pools/{address}/events',
      '/api/agent/marketplace/listings',
      '/api/agent/marketplace/listings/{poolAddress}',
      '/api/agent/marketplace/stats/{poolAddress}',
      '/api/agent/portfolio/holdings',
      '/api/agent/portfolio/positions/{poolAddress}',
      '/api/agent/portfolio/listings',
      '/api/agent/portfolio/distributions',
      '/api/agent/portfolio/history',
    ]) {
      expect(doc.paths[path]?.get).toBeDefined();
    }
    const params = doc.paths['/api/agent/pools'].get.parameters.map((p: { name: string }) => p.name).sort();
    expect(params).toEqual(['access_type', 'limit', 'network_id', 'page', 'search', 'sort']);
  });

  it('gives byte-identical responses after a full rebuild of every read model', async () => {
    const urls = [
      '/pools',
      '/pools?sort=members_desc',
      '/pools/featured',
      '/pools/crowdfunding?status=all',
      `/pools/${W.solar}?network_id=9`,
      `/pools/${W.solar}/members?network_id=9`,
      `/pools/${W.solar}/distributions?network_id=9`,
      `/pools/${W.solar}/events?network_id=9`,
      `/pools/${W.wind}/distributions`,
      '/marketplace/listings?status=all',
      `/marketplace/listings/${W.solar}?network_id=9&status=all`,
      `/marketplace/stats/${W.solar}?network_id=9`,
      '/portfolio/holdings',
      '/portfolio/distributions',
      '/portfolio/history',
      '/portfolio/listings?status=all',
    ];
    const before = [];
    for (const u of urls) before.push((await get(u)).raw);
    await h.rebuildAll();
    const states = await h.runner.status();
    expect(states.every((s) => s.active!.slot.generation === 1)).toBe(true);
    const after = [];
    for (const u of urls) after.push((await get(u)).raw);
    expect(after).toEqual(before);
  });
});
