import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { SqlPreparedTransactions } from './sql-prepared-transactions';

describe.each(testDatabases())('SqlPreparedTransactions on $name', (factory) => {
  let db: SqlDatabase;
  let store: SqlPreparedTransactions;
  const t0 = new Date('2026-03-01T12:00:00Z');
  const at = (s: number) => new Date(t0.getTime() + s * 1000);
  const row = (hash: string) => ({
    hash,
    kind: 'buy' as const,
    networkId: 9,
    wallet: 'GWALLET',
    keyId: 'ak_1',
    xdr: 'AAAA',
    expiresAt: at(600),
    context: { listing_id: 'SALE_1', shares: '10', details: { total_cost: '25.00' } },
    createdAt: t0,
  });

  beforeAll(async () => {
    db = await factory.create();
    store = await SqlPreparedTransactions.open(db);
    await SqlPreparedTransactions.open(db); // migration is idempotent
  });
  afterAll(async () => db.close());

  it('remembers a prepared transaction with its context (jsonb) and keeps the first save of a hash', async () => {
    await store.save(row('h1'));
    await store.save({ ...row('h1'), wallet: 'GOTHER' });
    const found = await store.find('h1');
    expect(found).toMatchObject({ hash: 'h1', kind: 'buy', networkId: 9, wallet: 'GWALLET', state: 'prepared', outcome: null, context: row('h1').context });
    expect(found!.expiresAt.toISOString()).toBe(at(600).toISOString());
    expect(await store.find('nope')).toBeNull();
  });

  it('lets exactly one of many concurrent submits claim a transaction', async () => {
    await store.save(row('h2'));
    const claims = await Promise.all(Array.from({ length: 10 }, () => store.claim('h2', 'SIGNED', at(1), at(-60))));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await store.find('h2'))!.state).toBe('submitting');
  });

  it('keeps the first final outcome; a stale claim can be taken over, a fresh one cannot; release returns to prepared', async () => {
    await store.save(row('h3'));
    expect(await store.claim('h3', 'S', at(1), at(-60))).toBe(true);
    expect(await store.claim('h3', 'S', at(30), at(-30))).toBe(false); // claimed at +1 s, not stale before −30 s
    expect(await store.claim('h3', 'S', at(120), at(60))).toBe(true); // stale: claimed before +60 s
    await store.finish('h3', { state: 'succeeded', data: { shares_bought: 10 } }, at(121));
    await store.finish('h3', { state: 'failed', error: { code: 'TRANSACTION_FAILED', message: 'late' } }, at(122));
    expect((await store.find('h3'))!.outcome).toEqual({ state: 'succeeded', data: { shares_bought: 10 } });
    expect(await store.claim('h3', 'S', at(999), at(900))).toBe(false);

    await store.save(row('h4'));
    await store.claim('h4', 'S', at(1), at(-60));
    await store.release('h4', at(2));
    expect((await store.find('h4'))!.state).toBe('prepared');
  });
});
