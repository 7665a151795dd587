import { createChainEventCatalog } from '@dob/domain';
import { DEVNET_STAND_IN_WASMS, startDevnet, type RunningDevnet } from '@dob/devnet';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { registerSeededPools, silentLogger, startNetworkIndexing, type NetworkIndexing } from '@dob/indexer';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../sql/src/testing/test-databases';
import { createNotifier, type Notifier } from './notifier';
import { verifySvcSignature } from './signing/delivery-signatures';
import { startTestReceiver, type TestReceiver } from './testing/https-receiver';
import { WEBHOOK_EVENTS } from './webhook-events';
import { testCaller } from './testing/test-caller';

const SECRET = 'devnet-webhook-secret-0123';
// Seeding the devnet and indexing it is slow on a loaded 2-core machine; correctness, not speed, is checked here.
jest.setTimeout(300_000);

/**
 * Real chain-derived events: the seeded devnet (pools, listings, sales, rounds, campaigns, all through signed
 * transactions) over HTTP → the indexer → event store → the notifier → a local HTTPS receiver. Payloads are checked
 * against what the chain did, not against hand-made events.
 */
describe('webhooks from the seeded devnet (devnet over HTTP → indexer → notifier → HTTPS receiver)', () => {
  const postgres = testDatabases().find((f) => f.name === 'postgres')!;
  let devnet: RunningDevnet;
  let db: SqlDatabase;
  let store: EventStore;
  let receiver: TestReceiver;
  let notifier: Notifier;
  let indexing: NetworkIndexing;

  beforeAll(async () => {
    receiver = await startTestReceiver();
    devnet = await startDevnet({ port: 0, seed: true, ledgerIntervalMs: 500 });
    db = await postgres.create();
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    notifier = await createNotifier({
      db,
      eventStore: store,
      tokens: [{ networkId: 9, address: devnet.paymentToken, symbol: 'USDC', decimals: 7 }],
      secretKey: Buffer.alloc(32, 2),
      allowList: { hosts: ['localhost'] },
      ca: receiver.cert,
      pollIntervalMs: 50,
    });
    await notifier.components.service.register(testCaller('ak_devnet'), { url: `${receiver.origin}/dob`, events: [...WEBHOOK_EVENTS], secret: SECRET });
    await registerSeededPools(store, 9, devnet.pools);
    await notifier.start();
    indexing = startNetworkIndexing(store, {
      networkId: 9,
      rpcUrl: devnet.rpcUrl,
      startLedger: 1,
      discovery: true,
      knownWasms: DEVNET_STAND_IN_WASMS,
      pollIntervalMs: 200,
      schedulerIntervalMs: 500,
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await indexing?.stop();
    await notifier?.stop();
    await store?.close();
    await db?.close();
    await devnet?.stop();
    await receiver?.close();
  });

  const bodies = () =>
    receiver.requests.map((r) => JSON.parse(r.raw.toString('utf8')) as { event: string; delivery_id: string; data: Record<string, unknown> });

  it('delivers pool_created, listing and sale notifications whose fields match the chain and the registry', async () => {
    const end = Date.now() + 240_000;
    while (!bodies().some((b) => b.event === 'marketplace_sale_completed') && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 1500)); // let the rest of the ingested history arrive
    const all = bodies();
    const byEvent = (e: string) => all.filter((b) => b.event === e);
    const seen = [...new Set(all.map((b) => b.event))].sort();
    console.log(`devnet webhooks received: ${JSON.stringify(Object.fromEntries(seen.map((e) => [e, byEvent(e).length])))}`);

    for (const r of receiver.requests) expect(verifySvcSignature(SECRET, r.raw, r.headers['x-svc-signature'] as string)).toBe(true);
    expect(new Set(all.map((b) => b.delivery_id)).size).toBe(all.length);

    const names = new Map(devnet.pools.map((p) => [p.pool_address, p]));
    const created = byEvent('pool_created');
    expect(created.length).toBeGreaterThan(0);
    for (const c of created) {
      const p = names.get(c.data.pool_address as string);
      if (p)
        expect(c.data).toMatchObject({
          pool_name: p.name,
          pool_ticker: p.ticker,
          access_type: p.access_type,
          distribution_type: p.distribution_type,
          network_id: 9,
        });
      expect(c.data.creator_address).toMatch(/^G[A-Z2-7]{55}$/);
    }

    const sales = byEvent('marketplace_sale_completed');
    expect(sales.length).toBeGreaterThan(0);
    const listings = byEvent('marketplace_listing_created');
    for (const s of sales) {
      expect(s.data.sale_address).toMatch(/^SALE_[0-9a-f]{32}$/);
      const listing = listings.find((l) => l.data.sale_address === s.data.sale_address);
      expect(listing).toBeDefined();
      expect(listing!.data).toMatchObject({ pool_address: s.data.pool_address, seller_address: s.data.seller_address });
      expect(Number.isInteger(s.data.shares)).toBe(true);
      expect(s.data.total_price).toMatch(/^\d+\.\d{2,7}$/);
      expect(s.data.transaction_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(s.data.payment_token).toBe('USDC');
      expect(s.data.pool_name).toBe(names.get(s.data.pool_address as string)?.name ?? null);
    }
  });
});
