import { createHash } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Address, Contract, Keypair, nativeToScVal, rpc, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { walletEvents } from '@dob/auth';
import { DEVNET_STAND_IN_WASMS, startDevnet, DEFAULT_SEED, type RunningDevnet } from '@dob/devnet';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { silentLogger, startNetworkIndexing, type NetworkIndexing } from '@dob/indexer';
import { ProjectionRunner, createSqlReadModelStore } from '@dob/projections';
import { createReadQueries, createSqlReadModelReader, projectionRegistry } from '@dob/read-models';
import { HealthRegistry } from '@dob/runtime';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { createTradingService, ReadModelPoolLookup, StellarRpcGateway, StellarNetworks, type TradingService } from '@dob/trading';
import { createApiApp } from '../bootstrap';
import { createApiAuth } from '../access';

/**
 * The whole trading path through HTTP, with agents that use ONLY @stellar/stellar-sdk and fetch: faucet wallet →
 * challenge signed with Keypair.signMessage → API key → prepare → sign locally → submit → the devnet applies it →
 * the indexer and projections show the effect through the read API. Composed here (devnet, indexer, projector,
 * auth, read API, trading over one PGlite) until the all-in-one harness wires trading.
 */
const NET = 9;
const TESTNET_PASSPHRASE = 'Test SDF Network ; September 2015';
const USDC = 10_000_000n;

type Envelope = { success: boolean; data?: any; error?: { code: string; message: string; details?: any } };

describe('trading: prepare → sign locally → submit (e2e over the devnet)', () => {
  let devnet: RunningDevnet;
  let db: SqlDatabase;
  let events: EventStore;
  let indexing: NetworkIndexing;
  let projections: ProjectionRunner;
  let auth: Awaited<ReturnType<typeof createApiAuth>>;
  let trading: TradingService;
  let app: NestFastifyApplication;
  let api: string;
  let server: rpc.Server;
  // Shifts the trading service's clock (only the expiry test uses it).
  let clockOffsetMs = 0;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, seed: true, ledgerIntervalMs: 250 });
    server = new rpc.Server(devnet.rpcUrl, { allowHttp: true });
    db = await createPgliteDatabase();
    events = await createSqlEventStore(db, { pollIntervalMs: 50, catalog: createChainEventCatalog(walletEvents) });
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
    auth = await createApiAuth({ db, events, jwt: { secret: 'trading-e2e-secret-0123456789' }, ipRateLimitRpm: 10_000 });
    const tokens = [{ networkId: NET, symbol: 'USDC', address: devnet.paymentToken, decimals: 7 }];
    trading = await createTradingService({
      db,
      networks: [{ id: NET, rpcUrl: devnet.rpcUrl, passphrase: devnet.networkPassphrase, explorerUrl: 'https://stellar.expert/explorer/testnet', tokens }],
      clock: () => new Date(Date.now() + clockOffsetMs),
      pollIntervalMs: 100,
    });
    app = await createApiApp({ health: new HealthRegistry(), auth, read: { queries: createReadQueries({ db, tokens }) }, trading }, { logger: false });
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    api = `http://127.0.0.1:${address.port}/api/agent`;
  });

  afterAll(async () => {
    await app?.close();
    await auth?.close();
    await indexing?.stop();
    await projections?.stop();
    await events?.close();
    await devnet?.stop();
    await db?.close();
  });

  // ---- an agent: only the SDK and HTTP ----
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    key?: string,
    signal?: AbortSignal,
    extraHeaders: Record<string, string> = {},
  ): Promise<{ status: number; body: Envelope; headers: Headers }> => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(key ? { 'x-api-key': key } : {}), ...extraHeaders },
      body: body ? JSON.stringify(body) : undefined,
      signal,
    });
    return { status: res.status, body: (await res.json()) as Envelope, headers: res.headers };
  };

  async function register(kp: Keypair): Promise<string> {
    const challenge = await call('GET', `/auth/challenge/${kp.publicKey()}`);
    const signature = Buffer.from(kp.signMessage(challenge.body.data.message)).toString('hex');
    const reg = await call('POST', '/auth/register', { wallet: kp.publicKey(), signature, label: 'e2e agent', scopes: ['read', 'trade'] });
    expect(reg.status).toBe(201);
    return reg.body.data.api_key.key as string;
  }

  const signLocally = (xdrText: string, kp: Keypair, passphrase = devnet.networkPassphrase): string => {
    const tx = TransactionBuilder.fromXDR(xdrText, passphrase) as Transaction;
    tx.sign(kp);
    return tx.toXDR();
  };

  async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const sequenceOf = async (account: string) => (await server.getAccount(account)).sequenceNumber();
  const hashOf = (signedXdr: string) => Buffer.from((TransactionBuilder.fromXDR(signedXdr, devnet.networkPassphrase) as Transaction).hash()).toString('hex');
  const notOnChain = async (signedXdr: string) => expect((await server.getTransaction(hashOf(signedXdr))).status).toBe('NOT_FOUND');

  /** Seeded holders are derived from public labels (libs/devnet devnet-identities): sha256("dob-devnet/<label>"). */
  const seededKey = (label: string) => Keypair.fromRawEd25519Seed(createHash('sha256').update(`dob-devnet/seed-${DEFAULT_SEED}/${label}`).digest());

  async function invoke(kp: Keypair, contractId: string, fn: string, args: xdr.ScVal[]) {
    const tx = new TransactionBuilder(await server.getAccount(kp.publicKey()), { fee: '100', networkPassphrase: devnet.networkPassphrase })
      .addOperation(new Contract(contractId).call(fn, ...args))
      .setTimeout(60)
      .build();
    const prepared = await server.prepareTransaction(tx);
    prepared.sign(kp);
    const sent = await server.sendTransaction(prepared);
    const final = await server.pollTransaction(sent.hash, { attempts: 100, sleepStrategy: () => 100 });
    expect(final.status).toBe('SUCCESS');
  }

  /** The ledger clock (the devnet's can differ from wall time after seeding): latestLedgerCloseTime of any lookup. */
  const chainNow = async (): Promise<number> => Number((await server.getTransaction('00'.repeat(32))).latestLedgerCloseTime);

  const friendbot = async (kp: Keypair) => expect((await fetch(`${devnet.friendbotUrl}?addr=${kp.publicKey()}`)).status).toBe(200);

  /** A campaign the test opens (admin op deploy + a signed init), like an operator would on testnet. */
  async function openCampaign(name: string, deadlineInSeconds: number, softCap: bigint): Promise<string> {
    const admin = Keypair.random();
    await friendbot(admin);
    const address = devnet.chain.deployContract('crowdfunding_v1', createHash('sha256').update(`trading-e2e/${name}/${Date.now()}`).digest());
    const deadline = BigInt((await chainNow()) + deadlineInSeconds);
    const addr = (a: string) => new Address(a).toScVal();
    const i128 = (n: bigint) => nativeToScVal(n, { type: 'i128' });
    await invoke(admin, address, 'init', [
      addr(admin.publicKey()),
      addr(devnet.paymentToken),
      i128(USDC),
      i128(softCap),
      i128(softCap * 2n),
      xdr.ScVal.scvU64(deadline),
      xdr.ScVal.scvU32(0),
    ]);
    await eventually(
      `campaign ${name} in the read models`,
      async () => (await new ReadModelPoolLookup(createSqlReadModelReader(db)).find(NET, address))?.kind === 'crowdfunding',
    );
    return address;
  }

  const seller = () => seededKey('pool-0/holder-0');
  const buyer = Keypair.random();
  let sellerKey: string;
  let buyerKey: string;
  let pool: string;
  let saleAddress: string;

  it("lists a seeded holder's shares: prepare-list → sign → submit-list gives the sale_address the read API shows", async () => {
    pool = devnet.pools[0]!.pool_address;
    sellerKey = await register(seller());
    await eventually('pool 0 indexed', async () => (await call('GET', `/pools/${pool}?network_id=${NET}`, undefined, sellerKey)).status === 200);

    const prepared = await call(
      'POST',
      '/marketplace/prepare-list',
      { pool_address: pool, shares_amount: 30, price_per_share: '2.5', payment_token: 'USDC', network_id: NET },
      sellerKey,
    );
    expect(prepared.status).toBe(200);
    expect(prepared.body.data.transaction_details).toEqual({
      pool_address: pool,
      shares_amount: 30,
      price_per_share: '2.50',
      total_listing_value: '75.00',
      payment_token: 'USDC',
    });
    expect(prepared.body.data.network_passphrase).toBe(devnet.networkPassphrase);
    const expires = Date.parse(prepared.body.data.expires_at);
    expect(expires - Date.now()).toBeGreaterThan(590_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(600_000);

    const submitted = await call('POST', '/marketplace/submit-list', { signed_xdr: signLocally(prepared.body.data.xdr, seller()), network_id: NET }, sellerKey);
    expect(submitted.status).toBe(200);
    expect(submitted.body.data).toMatchObject({ pool_address: pool, shares_listed: 30, price_per_share: '2.50', payment_token: 'USDC' });
    expect(submitted.body.data.transaction_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(submitted.body.data.stellar_explorer_url).toBe(`https://stellar.expert/explorer/testnet/tx/${submitted.body.data.transaction_hash}`);
    saleAddress = submitted.body.data.sale_address;
    expect(saleAddress).toMatch(/^SALE_[0-9a-f]{32}$/);
    // The id the service reports is the id the read models derive from the indexed `listed` event.
    await eventually('listing in the read API', async () => {
      const r = await call('GET', `/marketplace/listings/${pool}?network_id=${NET}`, undefined, sellerKey);
      return r.body.data?.find((l: { sale_address: string }) => l.sale_address === saleAddress);
    });
  });

  it('refuses bad prepares: own listing, too many shares, non-positive amount, unknown listing, non-Stellar network', async () => {
    await friendbot(buyer);
    buyerKey = await register(buyer);
    const own = await call('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, network_id: NET }, sellerKey);
    expect([own.status, own.body.error?.message]).toEqual([400, 'Cannot buy your own listing']);
    const tooMany = await call('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, amount: 31, network_id: NET }, buyerKey);
    expect([tooMany.status, tooMany.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    const zero = await call('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, amount: 0, network_id: NET }, buyerKey);
    expect(zero.status).toBe(400);
    const unknown = await call('POST', '/marketplace/prepare-buy', { listing_id: 'SALE_00000000000000000000000000000000', network_id: NET }, buyerKey);
    expect([unknown.status, unknown.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    const evm = await call('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, network_id: 1 }, buyerKey);
    expect([evm.status, evm.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    const overHeld = await call(
      'POST',
      '/marketplace/prepare-list',
      { pool_address: pool, shares_amount: 1, price_per_share: '1', payment_token: 'USDC', network_id: NET },
      buyerKey,
    );
    expect([overHeld.status, overHeld.body.error?.message]).toEqual([400, expect.stringMatching(/holds 0 shares/)]);
  });

  it('buys part of the listing; tampered, foreign-signed, foreign-network, unprepared, and expired envelopes are refused and never sent; a retry after a dropped connection replays the one trade', async () => {
    const prepared = await call('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, amount: 10, network_id: NET }, buyerKey);
    expect(prepared.status).toBe(200);
    expect(prepared.body.data.transaction_details).toEqual({
      listing_id: saleAddress,
      shares: 10,
      price_per_share: '2.50',
      total_cost: '25.00',
      payment_token: 'USDC',
      seller_address: seller().publicKey(),
    });
    const xdrText: string = prepared.body.data.xdr;
    const seqBefore = await sequenceOf(buyer.publicKey());
    const refused = async (signed: string, status: number, code: string, parsable = true) => {
      const r = await call('POST', '/marketplace/submit-buy', { signed_xdr: signed, network_id: NET }, buyerKey);
      expect([r.status, r.body.error?.code]).toEqual([status, code]);
      if (parsable) await notOnChain(signed);
      expect(await sequenceOf(buyer.publicKey())).toBe(seqBefore);
      return r;
    };

    // Tampered: same call, one stroop more fee — a different transaction hash.
    const original = TransactionBuilder.fromXDR(xdrText, devnet.networkPassphrase) as Transaction;
    const tampered = TransactionBuilder.cloneFrom(original, { fee: String(Number(original.fee) + 1), networkPassphrase: devnet.networkPassphrase }).build();
    tampered.sign(buyer);
    await refused(tampered.toXDR(), 400, 'VALIDATION_ERROR');
    await refused(signLocally(xdrText, Keypair.random()), 400, 'VALIDATION_ERROR');
    await refused(signLocally(xdrText, buyer, TESTNET_PASSPHRASE), 400, 'VALIDATION_ERROR');
    await refused('AAAA-not-xdr', 400, 'VALIDATION_ERROR', false);

    // Never prepared here: the agent builds the same call itself.
    const own = await server.prepareTransaction(
      new TransactionBuilder(await server.getAccount(buyer.publicKey()), { fee: '100', networkPassphrase: devnet.networkPassphrase })
        .addOperation(
          new Contract(pool).call(
            'buy_shares',
            new Address(buyer.publicKey()).toScVal(),
            new Address(seller().publicKey()).toScVal(),
            nativeToScVal(1n, { type: 'i128' }),
          ),
        )
        .setTimeout(300)
        .build(),
    );
    own.sign(buyer);
    await refused(own.toXDR(), 400, 'VALIDATION_ERROR');

    // Expired: prepared with the service clock 11 minutes back, so its maxTime is already past.
    clockOffsetMs = -11 * 60_000;
    const stale = await call('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, amount: 1, network_id: NET }, buyerKey);
    clockOffsetMs = 0;
    expect(stale.status).toBe(200);
    await refused(signLocally(stale.body.data.xdr, buyer), 400, 'TRANSACTION_EXPIRED');

    // The first submit is sent, then its connection dropped while the trade is in flight (the claim is taken): the
    // client never sees the answer and retries — twice at once. Both retries wait for the first outcome.
    const signed = signLocally(xdrText, buyer);
    const seqBeforeBuy = await sequenceOf(buyer.publicKey());
    const dropped = new AbortController();
    const lost = call('POST', '/marketplace/submit-buy', { signed_xdr: signed, network_id: NET }, buyerKey, dropped.signal).catch((e: Error) => e);
    const stateOf = async () =>
      (await db.query<{ state: string }>(`SELECT state FROM trading_prepared_transactions WHERE hash = $1`, [hashOf(signed)])).rows[0]?.state;
    for (const until = Date.now() + 30_000; (await stateOf()) === 'prepared' && Date.now() < until;) await new Promise((r) => setTimeout(r, 5));
    expect(await stateOf()).toBe('submitting');
    dropped.abort();
    expect(await lost).toMatchObject({ name: 'AbortError' });
    const retries = await Promise.all([1, 2].map(() => call('POST', '/marketplace/submit-buy', { signed_xdr: signed, network_id: NET }, buyerKey)));
    for (const r of retries) {
      expect(r.status).toBe(200);
      expect(r.headers.get('idempotent-replayed')).toBe('true');
      expect(r.body.data).toMatchObject({ listing_id: saleAddress, shares_bought: 10, total_cost: '25.00', payment_token: 'USDC' });
    }
    const ok = retries[0]!;
    expect(retries[1]!.body.data).toEqual(ok.body.data);
    expect((await server.getTransaction(ok.body.data.transaction_hash)).status).toBe('SUCCESS');
    // One trade on chain: the buyer's sequence moved once.
    expect(await sequenceOf(buyer.publicKey())).toBe((BigInt(seqBeforeBuy) + 1n).toString());

    // A later replay: the same answer again, nothing sent; other signed bytes for that transaction are refused.
    const seqAfter = await sequenceOf(buyer.publicKey());
    const replay = await call('POST', '/marketplace/submit-buy', { signed_xdr: signed, network_id: NET }, buyerKey);
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(replay.body.data).toEqual(ok.body.data);
    const doubleSigned = TransactionBuilder.fromXDR(signed, devnet.networkPassphrase) as Transaction;
    doubleSigned.sign(Keypair.random());
    const other = await call('POST', '/marketplace/submit-buy', { signed_xdr: doubleSigned.toXDR(), network_id: NET }, buyerKey);
    expect([other.status, other.body.error?.code]).toEqual([409, 'CONFLICT']);
    expect(await sequenceOf(buyer.publicKey())).toBe(seqAfter);

    // The read side follows the chain: 20 shares remain, the buyer is a member with 10, one more sale in the stats.
    await eventually('remaining shares in the listing', async () => {
      const r = await call('GET', `/marketplace/listings/${pool}?network_id=${NET}`, undefined, buyerKey);
      return r.body.data?.find((l: { sale_address: string; shares_amount: number }) => l.sale_address === saleAddress && l.shares_amount === 20);
    });
    const members = await call('GET', `/pools/${pool}/members?network_id=${NET}&limit=100`, undefined, buyerKey);
    expect(members.body.data.find((m: { user_address: string }) => m.user_address === buyer.publicKey())?.shares).toBe(10);
    const stats = await call('GET', `/marketplace/stats/${pool}?network_id=${NET}`, undefined, buyerKey);
    expect(stats.body.data.total_sales).toBeGreaterThanOrEqual(3);
  });

  it('lists the bought shares and cancels the listing (prepare and submit under an Idempotency-Key)', async () => {
    const listBody = { pool_address: pool, shares_amount: 5, price_per_share: '3', payment_token: 'USDC', network_id: NET };
    const key = { 'idempotency-key': `list-${Date.now()}` };
    const list = await call('POST', '/marketplace/prepare-list', listBody, buyerKey, undefined, key);
    expect([list.status, list.headers.get('idempotent-replayed')]).toEqual([200, null]);
    // The same key and body: the same prepared transaction, marked a replay; the same key with another body: 422.
    const again = await call('POST', '/marketplace/prepare-list', listBody, buyerKey, undefined, key);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.data.xdr]).toEqual([200, 'true', list.body.data.xdr]);
    const other = await call('POST', '/marketplace/prepare-list', { ...listBody, shares_amount: 4 }, buyerKey, undefined, key);
    expect([other.status, other.body.error?.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    const submitKey = { 'idempotency-key': `submit-list-${Date.now()}` };
    const signedList = { signed_xdr: signLocally(list.body.data.xdr, buyer), network_id: NET };
    const listed = await call('POST', '/marketplace/submit-list', signedList, buyerKey, undefined, submitKey);
    expect(listed.status).toBe(200);
    const relisted = await call('POST', '/marketplace/submit-list', signedList, buyerKey, undefined, submitKey);
    expect([relisted.status, relisted.headers.get('idempotent-replayed'), relisted.body.data]).toEqual([200, 'true', listed.body.data]);
    const sale = listed.body.data.sale_address as string;
    const cancel = await eventually('own listing cancellable', async () => {
      const r = await call('POST', '/marketplace/prepare-cancel', { listing_id: sale, network_id: NET }, buyerKey);
      return r.status === 200 ? r : undefined;
    });
    expect(cancel.body.data.transaction_details).toEqual({ listing_id: sale, shares_returned: 5 });
    const notMine = await call('POST', '/marketplace/prepare-cancel', { listing_id: sale, network_id: NET }, sellerKey);
    expect(notMine.status).toBe(400);
    const cancelled = await call('POST', '/marketplace/submit-cancel', { signed_xdr: signLocally(cancel.body.data.xdr, buyer), network_id: NET }, buyerKey);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ listing_id: sale, shares_returned: 5 });
    await eventually('cancelled listing is inactive', async () => {
      const r = await call('POST', '/marketplace/prepare-cancel', { listing_id: sale, network_id: NET }, buyerKey);
      return r.status === 409 && r.body.error?.code === 'CONFLICT';
    });
  });

  it('contributes to a campaign, with the five crowdfunding refusals', async () => {
    const campaign = await openCampaign('open', 86_400, 5_000n); // target 5,000 USDC at 1 USDC per share
    const contribute = (amount: string, poolAddress = campaign) =>
      call('POST', '/crowdfunding/prepare-contribute', { pool_address: poolAddress, amount, network_id: NET }, buyerKey);

    expect((await contribute('10', pool)).body.error?.message).toBe('Pool is not a crowdfunding campaign');
    expect((await contribute('0')).body.error?.message).toBe('Contribution amount must be greater than zero');
    const over = await contribute('5000.01');
    expect([over.status, over.body.error?.message]).toEqual([400, 'Amount exceeds remaining target. Maximum contribution: 5000.00 USDC']);
    const seededFailed = await eventually('a seeded failed campaign', async () => {
      const r = await call('GET', `/pools/crowdfunding?network_id=${NET}&status=all`, undefined, buyerKey);
      return r.body.data?.find((c: { is_active: boolean; address: string }) => !c.is_active && c.address !== campaign)?.address as string | undefined;
    });
    expect((await contribute('10', seededFailed)).body.error?.message).toBe('Crowdfunding campaign deadline has passed');
    // The buyer holds 10,000 − 25 USDC from the faucet.
    const poorer = await openCampaign('big', 86_400, 50_000n);
    expect((await contribute('20000', poorer)).body.error?.message).toBe('Insufficient balance of the payment token');

    const prepared = await contribute('12.5');
    expect(prepared.status).toBe(200);
    expect(prepared.body.data.transaction_details).toMatchObject({
      pool_address: campaign,
      amount: '12.00',
      payment_token: 'USDC',
      estimated_shares: 12,
      current_raised: '0.00',
      target_amount: '5000.00',
      progress_after_contribution: '0.24',
    });
    const done = await call('POST', '/crowdfunding/submit-contribute', { signed_xdr: signLocally(prepared.body.data.xdr, buyer), network_id: NET }, buyerKey);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({
      pool_address: campaign,
      amount_contributed: '12.00',
      payment_token: 'USDC',
      shares_allocated: 12,
      new_total_raised: '12.00',
      progress_percent: 0.24,
    });
  });

  it('reclaims from a campaign that failed', async () => {
    const deadline = (await chainNow()) + 12;
    const campaign = await openCampaign('failing', 12, 1_000n);
    const prepared = await call('POST', '/crowdfunding/prepare-contribute', { pool_address: campaign, amount: '7', network_id: NET }, buyerKey);
    expect(prepared.status).toBe(200);
    expect(
      (await call('POST', '/crowdfunding/submit-contribute', { signed_xdr: signLocally(prepared.body.data.xdr, buyer), network_id: NET }, buyerKey)).status,
    ).toBe(200);
    const early = await call('POST', '/crowdfunding/prepare-reclaim', { pool_address: campaign, network_id: NET }, buyerKey);
    expect([early.status, early.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);

    // After the deadline anyone may finalize; below the soft cap the campaign fails.
    await eventually('the deadline to pass on the ledger clock', async () => (await chainNow()) > deadline + 1, 60_000);
    const anyone = Keypair.random();
    await friendbot(anyone);
    await invoke(anyone, campaign, 'finalize', []);

    const reclaim = await call('POST', '/crowdfunding/prepare-reclaim', { pool_address: campaign, network_id: NET }, buyerKey);
    expect(reclaim.status).toBe(200);
    expect(reclaim.body.data.transaction_details).toMatchObject({ pool_address: campaign, amount: '7.00', payment_token: 'USDC', shares: 7 });
    const done = await call('POST', '/crowdfunding/submit-reclaim', { signed_xdr: signLocally(reclaim.body.data.xdr, buyer), network_id: NET }, buyerKey);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ pool_address: campaign, amount_reclaimed: '7.00', payment_token: 'USDC', shares_refunded: 7 });
  });

  it("answers 503 NETWORK_UNAVAILABLE when the network's RPC is unreachable", async () => {
    const gateway = new StellarRpcGateway();
    const net = new StellarNetworks([{ id: NET, rpcUrl: 'http://127.0.0.1:9/rpc', passphrase: devnet.networkPassphrase, explorerUrl: 'https://x' }]).get(NET);
    await expect(gateway.accountSequence(net, buyer.publicKey())).rejects.toMatchObject({ code: 'NETWORK_UNAVAILABLE', status: 503 });
  });
});
