import { campaignStreamId, chainDomainEventId, createChainEventCatalog, poolStreamId } from '@dob/domain';
import { createSqlEventStore, type EventStore, type NewEvent } from '@dob/event-store';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { Keypair } from '@stellar/stellar-sdk';
import { registerPool } from '../registry/pool-registry';
import { contractAddr } from '../testing/chain-events';
import { TimeDrivenScheduler } from './time-driven-scheduler';

/** Scheduler and pool registry against the real SQL event store (PGlite). One database, one network id per test. */
let db: SqlDatabase;
let store: EventStore;
beforeAll(async () => {
  db = await createPgliteDatabase();
  store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const POOL = contractAddr(1);
const CAMPAIGN = contractAddr(2);
const TOKEN = contractAddr(4);
const ADMIN = Keypair.random().publicKey();
const chain = (net: number, contract: string, n: number) => ({
  network_id: net,
  contract_id: contract,
  tx_hash: 'aa'.repeat(32),
  ledger: n,
  event_id: `chain-${n}`,
  closed_at: '2026-01-01T00:00:00.000Z',
});
const until = async (probe: () => boolean) => {
  for (let i = 0; !probe(); i++) {
    if (i > 500) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};
const ev = (net: number, contract: string, n: number, type: string, data: Record<string, unknown>): NewEvent => ({
  id: chainDomainEventId(net, `chain-${n}`, 0),
  type,
  version: 1,
  data: { chain: chain(net, contract, n), ...data },
});

/** A campaign with a soft cap of 1,000 shares and its deadline on 2026-05-01. */
const campaignCreated = (net: number, contract: string, n: number): NewEvent =>
  ev(net, contract, n, 'CampaignCreated', {
    contract_version: 'g',
    admin: ADMIN,
    payment_token: TOKEN,
    price_per_share: '100',
    soft_cap_shares: '1000',
    hard_cap_shares: '5000',
    deadline: '2026-05-01T00:00:00.000Z',
    deadline_unix: '1777593600',
    payout_mode: 'escrow',
  });

describe('TimeDrivenScheduler', () => {
  it('appends RoundClaimAvailable once when claimable_from passes, also across restarts', async () => {
    const net = 101;
    await store.appendToStream(poolStreamId(net, POOL), [
      ev(net, POOL, 1, 'RoundCreated', {
        round_id: '0',
        token: TOKEN,
        total_amount: '4975',
        claimable_from: '2026-03-01T00:00:00.000Z',
        expires_at: '2027-03-01T00:00:00.000Z',
        claimable_from_unix: '1772323200',
        expires_at_unix: '1803859200',
      }),
    ]);
    let now = new Date('2026-02-28T23:59:59Z');
    const s = new TimeDrivenScheduler(store, () => now);
    expect(await s.tick()).toBe(0);
    now = new Date('2026-03-01T00:00:01Z');
    expect(await s.tick()).toBe(1);
    expect(await s.tick()).toBe(0);
    // A fresh scheduler (restart) rebuilds its state from the store and appends nothing again.
    expect(await new TimeDrivenScheduler(store, () => now).tick()).toBe(0);
    const stream = await store.readStream(poolStreamId(net, POOL));
    expect(stream.map((e) => e.type)).toEqual(['RoundCreated', 'RoundClaimAvailable']);
    expect(stream[1].data).toMatchObject({ round_id: '0', total_amount: '4975', source_event_id: 'chain-1' });
  });

  it('declares the effective failure of an unfinalized campaign below soft cap after its deadline, exactly once', async () => {
    const net = 102;
    const created = (n: number, contract: string) => campaignCreated(net, contract, n);
    const other = contractAddr(3);
    await store.appendToStream(campaignStreamId(net, CAMPAIGN), [
      created(1, CAMPAIGN),
      ev(net, CAMPAIGN, 2, 'CampaignContributed', { investor: ADMIN, shares: '900', payment: '90000', total_shares_sold: '900' }),
    ]);
    // Reached the soft cap: not a failure even though nobody finalized.
    await store.appendToStream(campaignStreamId(net, other), [
      created(3, other),
      ev(net, other, 4, 'CampaignContributed', { investor: ADMIN, shares: '1000', payment: '100000', total_shares_sold: '1000' }),
    ]);
    const now = new Date('2026-05-01T00:00:00Z');
    const [a, b] = [new TimeDrivenScheduler(store, () => now), new TimeDrivenScheduler(store, () => now)];
    expect((await a.tick()) + (await b.tick())).toBe(1);
    const stream = await store.readStream(campaignStreamId(net, CAMPAIGN));
    expect(stream.map((e) => e.type)).toEqual(['CampaignCreated', 'CampaignContributed', 'CampaignEffectivelyFailed']);
    expect(stream[2].data).toMatchObject({ total_shares_sold: '900', soft_cap_shares: '1000', total_raised: '90000' });
    expect((await store.readStream(campaignStreamId(net, other))).map((e) => e.type)).not.toContain('CampaignEffectivelyFailed');
  });

  it('a lease lost and taken again during a tick: the stopped loop ends, and no event is folded twice', async () => {
    const net = 103;
    const stream = campaignStreamId(net, CAMPAIGN);
    await store.appendToStream(stream, [
      campaignCreated(net, CAMPAIGN, 1),
      ev(net, CAMPAIGN, 2, 'CampaignContributed', { investor: ADMIN, shares: '1200', payment: '120000', total_shares_sold: '1200' }),
    ]);
    let now = new Date('2026-04-30T00:00:00Z');
    // The store, but the next readAll waits until released (the database slow or gone while the lease lapses).
    let hold: Promise<void> | null = null;
    let release!: () => void;
    let reads = 0;
    const slow = Object.create(store, {
      readAll: {
        value: async (options: Parameters<EventStore['readAll']>[0]) => {
          reads += 1;
          const gate = hold;
          hold = null;
          if (gate) await gate;
          return store.readAll(options);
        },
      },
    }) as EventStore;
    const s = new TimeDrivenScheduler(slow, () => now);
    await s.tick(); // folded up to the contribution: 1200 sold
    await store.appendToStream(stream, [ev(net, CAMPAIGN, 3, 'CampaignOptedOut', { investor: ADMIN, shares: '200', refund_amount: '20000' })]);
    hold = new Promise((r) => (release = r));
    const errors: unknown[] = [];
    s.start(10, (e) => errors.push(e)); // scheduler lease acquired: its first tick hangs in readAll
    await until(() => hold === null);
    s.stop(); // lease lost mid-tick (leased-indexing.ts: onLost)
    s.start(10, (e) => errors.push(e)); // and taken again
    await new Promise((r) => setTimeout(r, 50)); // the new loop ticks meanwhile
    release(); // the first tick's page comes back (read after the position both ticks started from)
    await new Promise((r) => setTimeout(r, 50));
    s.stop();
    await s.tick(); // ticks run one at a time: this one ends after any tick still in flight
    const after = reads;
    await new Promise((r) => setTimeout(r, 50));
    expect(reads).toBe(after); // stopped means stopped, also for a loop whose tick was in flight at stop()
    // 1200 - 200 = 1000 sold = the soft cap: not a failure, whatever the deadline.
    now = new Date('2026-05-02T00:00:00Z');
    expect(await s.tick()).toBe(0);
    expect(await new TimeDrivenScheduler(store, () => now).tick()).toBe(0);
    expect((await store.readStream(stream)).map((e) => e.type)).not.toContain('CampaignEffectivelyFailed');
    expect(errors).toEqual([]);
  });
});

describe('registerPool', () => {
  const metadata = {
    name: 'Solar Farm I',
    ticker: 'SOLAR',
    access_type: 'public',
    distribution_type: 'revenue',
    estimated_apr: '8.5',
    max_participants: 100,
    token_to_distribute: 'USDC',
  };

  it('registers once, then appends only the changed fields', async () => {
    const net = 201;
    expect(await registerPool(store, { networkId: net, pool: POOL, metadata })).toBe('registered');
    expect(await registerPool(store, { networkId: net, pool: POOL, metadata })).toBe('unchanged');
    expect(await registerPool(store, { networkId: net, pool: POOL, metadata: { ...metadata, estimated_apr: '9.25' } })).toBe('updated');
    const stream = await store.readStream(poolStreamId(net, POOL));
    expect(stream.map((e) => e.type)).toEqual(['PoolRegistered', 'PoolMetadataUpdated']);
    expect(stream[1].data).toMatchObject({ changes: { estimated_apr: '9.25' } });
  });

  it('rejects metadata the catalog does not allow (float APR as a number is not a decimal string)', async () => {
    await expect(registerPool(store, { networkId: 202, pool: POOL, metadata: { ...metadata, estimated_apr: 8.5 as unknown as string } })).rejects.toThrow();
  });
});
