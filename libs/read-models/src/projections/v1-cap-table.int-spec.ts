import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { createReadQueries } from '../queries/read-queries';
import { accountAddr, ChainScenario, contractAddr } from '../testing/chain-scenario';
import { startReadModels, type ReadModelHarness } from '../testing/read-model-harness';

/**
 * V1 cap tables: `init` sets the table (PoolInitialized.initial_shares, read by the indexer from the call's args),
 * transfers move points, `update_shares` replaces the table (ShareTableUpdated.shares). Members, total_shares and
 * the V2 pool (whose shares are the PT's) must all follow.
 */
describe.each(testDatabases().filter((f) => f.name === 'pglite'))('V1 cap tables on $name', (factory) => {
  let db: SqlDatabase;
  let h: ReadModelHarness;
  const pool = contractAddr('v1-cap-table');
  const untracked = contractAddr('v1-no-table');
  const [admin, ann, ben, cy, dee] = ['admin', 'ann', 'ben', 'cy', 'dee'].map(accountAddr);
  const v1Init = (initial: { shareholder: string; share: string }[] | null, shares_len: number) => ({
    pool_version: '1',
    contract_version: '1.2',
    admin,
    shares_len,
    mutable: true,
    participation_token: null,
    pool_type: null,
    pool_type_code: null,
    ...(initial ? { initial_shares: initial } : {}),
  });

  beforeAll(async () => {
    db = await factory.create();
    h = await startReadModels(db);
  });
  afterAll(async () => {
    await h.close();
    await db.close();
  });

  const members = async (address: string) => {
    const q = createReadQueries({ db });
    const page = await q.poolActivity.members({ address, networkId: 9, page: 1, limit: 100 });
    return Object.fromEntries(page.items.map((m) => [m.user_address, m.shares]));
  };
  const totalShares = async (address: string) => (await createReadQueries({ db }).pools.detail(address, 9)).total_shares;

  it('starts a V1 pool from the init table, follows transfers, and replaces the table on update_shares', async () => {
    const s = new ChainScenario(9);
    s.chain(
      'PoolInitialized',
      pool,
      v1Init(
        [
          { shareholder: ann, share: '6000' },
          { shareholder: ben, share: '4000' },
        ],
        2,
      ),
    );
    s.chain('SharesTransferred', pool, { pool, from: ann, to: cy, shares: '1500', reason: 'direct' });
    await h.append(s.streamAppends());
    expect(await members(pool)).toEqual({ [ann]: 4500, [ben]: 4000, [cy]: 1500 });
    expect(await totalShares(pool)).toBe(10_000);

    // Later ledgers (event ids derive from the ledger: a fresh scenario must not reuse the first one's).
    const u = new ChainScenario(9, new Date('2026-02-01T00:00:00Z')).advance(50_000);
    u.chain('ShareTableUpdated', pool, {
      shareholder_count: 2,
      shares: [
        { shareholder: ben, share: '2500' },
        { shareholder: dee, share: '7500' },
      ],
    });
    await h.append(u.streamAppends());
    expect(await members(pool)).toEqual({ [ben]: 2500, [dee]: 7500 });
    expect(await totalShares(pool)).toBe(10_000);
    const rounds = await db.query<{ total_shares: string }>(`SELECT total_shares::text FROM rm_distribution_rounds_totals WHERE pool = $1`, [pool]);
    expect(rounds.rows[0]!.total_shares).toBe('10000');
  });

  it('keeps the old behaviour when the indexer could not read the table (no initial_shares, no shares)', async () => {
    const s = new ChainScenario(9, new Date('2026-03-01T00:00:00Z')).advance(100_000);
    s.chain('PoolInitialized', untracked, v1Init(null, 2));
    s.chain('SharesTransferred', untracked, { pool: untracked, from: ann, to: cy, shares: '10', reason: 'direct' });
    s.chain('ShareTableUpdated', untracked, { shareholder_count: 3 });
    await h.append(s.streamAppends());
    expect(await members(untracked)).toEqual({ [cy]: 10 });
  });

  it('rebuilds to the same members', async () => {
    const before = [await members(pool), await members(untracked)];
    await h.rebuildAll();
    expect([await members(pool), await members(untracked)]).toEqual(before);
  });
});
