import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { setFeaturedOverride } from '../featured/featured-overrides';
import { ChainScenario, contractAddr } from '../testing/chain-scenario';
import { demoWorld, W } from '../testing/demo-world';
import { startReadModels, type ReadModelHarness } from '../testing/read-model-harness';
import { createReadQueries, type ReadQueries } from './read-queries';
import { createReadResultCache, type ReadResultCache } from './read-result-cache';

function onePool(name: string): ChainScenario {
  const s = new ChainScenario(9);
  s.registry('PoolRegistered', contractAddr(name), {
    name,
    ticker: name.slice(0, 3).toUpperCase(),
    access_type: 'p',
    distribution_type: 'tr',
    estimated_apr: '5',
    max_participants: 10,
    token_to_distribute: 'USDC',
  });
  return s;
}

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each(testDatabases())('read-result cache on $name', (factory) => {
  let db: SqlDatabase;
  let h: ReadModelHarness;
  let cache: ReadResultCache;
  let q: ReadQueries;

  beforeAll(async () => {
    db = await factory.create();
    h = await startReadModels(db);
    await h.append(onePool('first').streamAppends());
    // A max age far beyond the test: only a change notification can make a cached answer fresh.
    cache = await createReadResultCache(db, { maxAgeMs: 600_000 });
    q = createReadQueries({ db: cache.db });
  });
  afterAll(async () => {
    await cache.close();
    await h.close();
    await db.close();
  });

  const list = () => q.pools.list({ page: 1, limit: 20, sort: 'created_desc' });

  it('answers a repeated read from memory, with the same result', async () => {
    const first = await list();
    const hits = cache.stats.hits;
    expect(await list()).toEqual(first);
    expect(cache.stats.hits).toBe(hits + 1);
    expect(first.total).toBe(1);
  });

  it('serves what a projection batch committed once it is notified', async () => {
    await list();
    await h.append(onePool('second').streamAppends());
    const after = await eventually(list, (p) => p.total === 2);
    expect(after.items.map((p) => p.name).sort()).toEqual(['first', 'second']);
  });

  it('serves a new featured override (operator write) once it is notified', async () => {
    const before = await q.featured.list({ networkId: 9 });
    expect(before.some((f) => f.featured_reason === 'Operator pick: cache test')).toBe(false);
    await setFeaturedOverride(db, { networkId: 9, address: contractAddr('second'), reason: 'cache test', position: 0 });
    const after = await eventually(
      () => q.featured.list({ networkId: 9 }),
      (l) => l[0]?.address === contractAddr('second'),
    );
    expect(after[0]!.address).toBe(contractAddr('second'));
  });

  it('caches nothing when LISTEN cannot be set up (every read goes to the database)', async () => {
    const noListen = Object.create(db) as SqlDatabase;
    noListen.listen = () => Promise.reject(new Error('no LISTEN here'));
    const fallback = await createReadResultCache(noListen, { maxAgeMs: 600_000 });
    try {
      await db.exec('CREATE TABLE IF NOT EXISTS cache_probe (v int); DELETE FROM cache_probe;');
      expect((await fallback.db.query('SELECT COUNT(*)::int AS n FROM cache_probe')).rows).toEqual([{ n: 0 }]);
      await db.query('INSERT INTO cache_probe VALUES (1)');
      expect((await fallback.db.query('SELECT COUNT(*)::int AS n FROM cache_probe')).rows).toEqual([{ n: 1 }]);
      expect(fallback.stats.hits).toBe(0);
    } finally {
      await fallback.close();
    }
  });
});

describe.each(testDatabases())('pool member stats on $name', (factory) => {
  it('equal the aggregate of positive balances after V1 cap tables, replacements, transfers and PT moves', async () => {
    const db = await factory.create();
    const world = demoWorld();
    const h = await startReadModels(db);
    try {
      await h.append([...world.testnet.streamAppends(), ...world.mainnet.streamAppends()]);
      const stats = await db.query(`SELECT network_id, pool, member_count, total_shares::text AS total_shares FROM rm_pool_members_stats
                                     WHERE member_count > 0 ORDER BY network_id, pool`);
      const aggregate = await db.query(`SELECT network_id, pool, COUNT(*)::int AS member_count, SUM(shares)::text AS total_shares
                                          FROM rm_pool_members_members WHERE shares > 0 GROUP BY network_id, pool ORDER BY network_id, pool`);
      expect(stats.rows.length).toBeGreaterThanOrEqual(2);
      expect(stats.rows).toEqual(aggregate.rows);
    } finally {
      await h.close();
      await db.close();
    }
  });
});

describe.each(testDatabases())('clock-dependent portfolio reads through the cache on $name', (factory) => {
  it('answer from the cache within an interval between round boundaries, and as uncached reads at every instant', async () => {
    const db = await factory.create();
    const world = demoWorld();
    const h = await startReadModels(db);
    const cache = await createReadResultCache(db, { maxAgeMs: 600_000 });
    try {
      await h.append([...world.testnet.streamAppends(), ...world.mainnet.streamAppends()]);
      let clock = world.now;
      const cached = createReadQueries({ db: cache.db, now: () => clock });
      const direct = createReadQueries({ db, now: () => clock });
      const read = async (q: ReadQueries) => ({ holdings: await q.portfolio.holdings(W.alice), distributions: await q.portfolio.distributions(W.alice) });

      const first = await read(cached);
      expect(first).toEqual(await read(direct));
      expect(first.distributions.claimable.length + first.distributions.upcoming.length).toBeGreaterThan(0);
      clock = new Date(world.now.getTime() + 1_000); // same interval: round 1 is claimable an hour after `now`
      const hits = cache.stats.hits;
      const misses = cache.stats.misses;
      expect(await read(cached)).toEqual(first);
      expect(cache.stats.misses).toBe(misses); // every query of the second read was answered from memory
      expect(cache.stats.hits).toBeGreaterThan(hits);

      // Across round 1's claimable_from and past round 0's expiry: whatever changed, cached equals uncached.
      for (const later of [3_600_000, 3_700_000, 40 * 86_400_000]) {
        clock = new Date(world.now.getTime() + later);
        expect(await read(cached)).toEqual(await read(direct));
      }
      clock = new Date(world.now.getTime() + 3_700_000);
      expect(await read(cached)).not.toEqual(first); // round 1 became claimable: the answer did move
    } finally {
      await cache.close();
      await h.close();
      await db.close();
    }
  });
});
