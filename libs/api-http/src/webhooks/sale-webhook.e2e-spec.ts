import { createHash } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Keypair, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { walletEvents } from '@dob/auth';
import { DEVNET_STAND_IN_WASMS, startDevnet, DEFAULT_SEED, type RunningDevnet } from '@dob/devnet';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { registerSeededPools, silentLogger, startNetworkIndexing, type NetworkIndexing } from '@dob/indexer';
import { ProjectionRunner, createSqlReadModelStore } from '@dob/projections';
import { createReadQueries, projectionRegistry } from '@dob/read-models';
import { HealthRegistry } from '@dob/runtime';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { createTradingService, type TradingService } from '@dob/trading';
import { createNotifier, verifySvcSignature, type Notifier } from '@dob/webhooks';
import { createApiApp } from '../bootstrap';
import { createApiAuth } from '../access';
import { startTestReceiver, type TestReceiver } from '../../../../libs/webhooks/src/testing/https-receiver';

/**
 * The product path end to end: an agent registers a webhook through the API, another agent buys listed shares on
 * the devnet through prepare-buy → local signature → submit-buy; the indexer sees the `sold` event, the notifier
 * fans it out and the agent's HTTPS endpoint receives a signed `marketplace_sale_completed` naming that sale.
 * Composed here (devnet, indexer, projector, auth, read API, trading, webhooks, notifier over one PostgreSQL schema)
 * until the all-in-one harness wires webhooks.
 */
const NET = 9;
const SECRET = 'agent-webhook-secret-0123456789';

describe('devnet buy through the API → marketplace_sale_completed webhook (e2e)', () => {
  const postgres = testDatabases().find((f) => f.name === 'postgres')!;
  let devnet: RunningDevnet;
  let db: SqlDatabase;
  let events: EventStore;
  let indexing: NetworkIndexing;
  let projections: ProjectionRunner;
  let auth: Awaited<ReturnType<typeof createApiAuth>>;
  let trading: TradingService;
  let notifier: Notifier;
  let receiver: TestReceiver;
  let app: NestFastifyApplication;
  let api: string;

  beforeAll(async () => {
    receiver = await startTestReceiver();
    devnet = await startDevnet({ port: 0, seed: true, ledgerIntervalMs: 250 });
    db = await postgres.create();
    events = await createSqlEventStore(db, { pollIntervalMs: 50, catalog: createChainEventCatalog(walletEvents) });
    // The registry feed the all-in-one root gives the seeded pools (names and tickers live off chain).
    await registerSeededPools(events, NET, devnet.pools);
    indexing = startNetworkIndexing(events, {
      networkId: NET,
      rpcUrl: devnet.rpcUrl,
      startLedger: 1,
      discovery: true,
      knownWasms: DEVNET_STAND_IN_WASMS,
      pollIntervalMs: 200,
      scheduler: false,
      logger: silentLogger,
    });
    projections = new ProjectionRunner(events, createSqlReadModelStore(db), projectionRegistry, { superviseIntervalMs: 100 });
    await projections.start();
    auth = await createApiAuth({ db, events, jwt: { secret: 'webhook-e2e-secret-0123456789' }, ipRateLimitRpm: 10_000 });
    const tokens = [{ networkId: NET, symbol: 'USDC', address: devnet.paymentToken, decimals: 7 }];
    trading = await createTradingService({
      db,
      networks: [{ id: NET, rpcUrl: devnet.rpcUrl, passphrase: devnet.networkPassphrase, explorerUrl: 'https://stellar.expert/explorer/testnet', tokens }],
      pollIntervalMs: 100,
    });
    notifier = await createNotifier({
      db,
      eventStore: events,
      tokens,
      secretKey: Buffer.alloc(32, 4),
      allowList: { hosts: ['localhost'] },
      ca: receiver.cert,
      pollIntervalMs: 50,
    });
    await notifier.start();
    app = await createApiApp(
      { health: new HealthRegistry(), auth, read: { queries: createReadQueries({ db, tokens }) }, trading, webhooks: notifier.components.service },
      { logger: false },
    );
    await app.listen(0, '127.0.0.1');
    api = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/api/agent`;
  });

  afterAll(async () => {
    await app?.close();
    await notifier?.stop();
    await auth?.close();
    await indexing?.stop();
    await projections?.stop();
    await events?.close();
    await devnet?.stop();
    await db?.close();
    await receiver?.close();
  });

  const call = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(key ? { 'x-api-key': key } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes vary per endpoint
    return { status: res.status, body: (await res.json()) as { success: boolean; data?: any; error?: { code: string; message: string } } };
  };
  async function register(kp: Keypair): Promise<string> {
    const challenge = await call('GET', `/auth/challenge/${kp.publicKey()}`);
    const signature = Buffer.from(kp.signMessage(challenge.body.data.message)).toString('hex');
    const reg = await call('POST', '/auth/register', { wallet: kp.publicKey(), signature, label: 'webhook e2e', scopes: ['read', 'trade'] });
    expect(reg.status).toBe(201);
    return reg.body.data.api_key.key as string;
  }
  const signLocally = (xdrText: string, kp: Keypair) => {
    const tx = TransactionBuilder.fromXDR(xdrText, devnet.networkPassphrase) as Transaction;
    tx.sign(kp);
    return tx.toXDR();
  };
  async function eventually<T>(
    what: string,
    probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
    timeoutMs = 60_000,
  ): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const seededKey = (label: string) => Keypair.fromRawEd25519Seed(createHash('sha256').update(`dob-devnet/seed-${DEFAULT_SEED}/${label}`).digest());

  it('a buy submitted through the API reaches the subscribed agent as a signed marketplace_sale_completed', async () => {
    const seller = seededKey('pool-0/holder-0');
    const buyer = Keypair.random();
    const pool = devnet.pools[0]!.pool_address;
    const sellerKey = await register(seller);
    await eventually('pool 0 indexed', async () => (await call('GET', `/pools/${pool}?network_id=${NET}`, undefined, sellerKey)).status === 200);

    // The seller's agent subscribes first (webhooks receive what happens after they are registered).
    const hook = await call(
      'POST',
      '/webhooks',
      { url: `${receiver.origin}/agent`, events: ['marketplace_listing_created', 'marketplace_sale_completed'], secret: SECRET },
      sellerKey,
    );
    expect(hook.status).toBe(201);

    const listed = await call(
      'POST',
      '/marketplace/prepare-list',
      { pool_address: pool, shares_amount: 30, price_per_share: '2.5', payment_token: 'USDC', network_id: NET },
      sellerKey,
    );
    const submittedList = await call('POST', '/marketplace/submit-list', { signed_xdr: signLocally(listed.body.data.xdr, seller), network_id: NET }, sellerKey);
    expect(submittedList.status).toBe(200);
    const saleAddress: string = submittedList.body.data.sale_address;

    expect((await fetch(`${devnet.friendbotUrl}?addr=${buyer.publicKey()}`)).status).toBe(200);
    const buyerKey = await register(buyer);
    await eventually('listing in the read API', async () => {
      const r = await call('GET', `/marketplace/listings/${pool}?network_id=${NET}`, undefined, buyerKey);
      return r.body.data?.find((l: { sale_address: string }) => l.sale_address === saleAddress);
    });
    const prepared = await call('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, amount: 10, network_id: NET }, buyerKey);
    expect(prepared.status).toBe(200);
    const bought = await call('POST', '/marketplace/submit-buy', { signed_xdr: signLocally(prepared.body.data.xdr, buyer), network_id: NET }, buyerKey);
    expect(bought.status).toBe(200);
    const txHash: string = bought.body.data.transaction_hash;

    const sale = await eventually('the sale webhook', () =>
      receiver.requests.find((r) => r.headers['x-svc-event'] === 'marketplace_sale_completed' && JSON.parse(r.raw.toString()).data.transaction_hash === txHash),
    );
    expect(verifySvcSignature(SECRET, sale.raw, sale.headers['x-svc-signature'] as string)).toBe(true);
    const body = JSON.parse(sale.raw.toString());
    expect(body).toEqual({
      event: 'marketplace_sale_completed',
      timestamp: expect.any(String),
      delivery_id: sale.headers['x-svc-delivery'],
      data: {
        sale_address: saleAddress,
        pool_address: pool,
        pool_name: devnet.pools[0]!.name,
        network_id: NET,
        seller_address: seller.publicKey(),
        buyer_address: buyer.publicKey(),
        shares: 10,
        price_per_share: '2.50',
        total_price: '25.00',
        payment_token: 'USDC',
        transaction_hash: txHash,
      },
    });
    const listing = receiver.requests.find((r) => r.headers['x-svc-event'] === 'marketplace_listing_created');
    expect(JSON.parse(listing!.raw.toString()).data).toMatchObject({
      sale_address: saleAddress,
      shares_amount: 30,
      price_per_share: '2.50',
      seller_address: seller.publicKey(),
    });
    // Only what happened after registration was delivered (the seeded history was not replayed to the agent).
    expect(receiver.requests.every((r) => JSON.parse(r.raw.toString()).data.pool_address === pool)).toBe(true);

    // The worker records the success after the receiver answered, so the log may say pending for a moment.
    const delivered = await eventually('the delivery logged as delivered', async () => {
      const log = await call('GET', `/webhooks/${hook.body.data.id}/deliveries`, undefined, sellerKey);
      const entry = log.body.data.find((d: { delivery_id: string }) => d.delivery_id === body.delivery_id);
      return entry?.status === 'delivered' ? entry : undefined;
    });
    expect(delivered).toMatchObject({ status: 'delivered', event: 'marketplace_sale_completed' });
  });
});
