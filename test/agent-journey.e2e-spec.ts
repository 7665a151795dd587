import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, nativeToScVal, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_SEED } from '@dob/devnet';
import { loadAppConfig } from '@dob/runtime';
import { startSystem, type RunningSystem } from '../apps/all/src/system';
import { addressArg, ChainReader, decimalString, i128Arg } from './chain-reader';
import { eventually as waitFor, settled as waitUntilSettled } from './system-waits';
import { startTestReceiver, type ReceivedRequest, type TestReceiver } from '../libs/webhooks/src/testing/https-receiver';

const METRICS_TOKEN = 'agent-journey-metrics-token';

/**
 * Issues 7 and 8 through the whole running system (devnet → indexer → event store → projections → notifier → API):
 * agents that use ONLY @stellar/stellar-sdk and fetch trade on a splitter V2 pool (escrowed marketplace), receive
 * the signed webhooks of their trades and of a distribution round whose claim delay passes (claim_available), and
 * contribute to / reclaim from a crowdfunding campaign. Effects are checked against the chain (simulated getters),
 * never against the projections.
 *
 * The devnet closes a ledger every second here: ledger close times are whole seconds and strictly increasing, so
 * sub-second intervals run the ledger clock ahead of wall time, while the scheduler that appends
 * RoundClaimAvailable compares claimable_from with wall time (as on a real network, where they agree).
 */
jest.setTimeout(300_000);

type Json = any;
const NET = 9;
const USDC = 10_000_000n;
const SECRET = 'whsec_agent_journey_0123456789';
const DAY = 86_400n;

// @octokit/webhooks-methods is ESM-only: import its file through a real dynamic import (jest would turn import() into require()).
const importEsm = new Function('p', 'return import(p)') as (
  p: string,
) => Promise<{ verify(secret: string, payload: string, signature: string): Promise<boolean> }>;
const octokit = () => importEsm(join(__dirname, '../node_modules/@octokit/webhooks-methods/dist-node/index.js'));

/** Seeded identities are public labels (libs/devnet devnet-identities): sha256("dob-devnet/seed-<n>/<label>"). */
const seeded = (label: string) => Keypair.fromRawEd25519Seed(createHash('sha256').update(`dob-devnet/seed-${DEFAULT_SEED}/${label}`).digest());
const u64Arg = (n: bigint) => nativeToScVal(n, { type: 'u64' });
/** DistributionConfig as an ScMap with its keys sorted (dob-contracts.md §3.4). */
const distributionConfig = (claimDelay: bigint, expiry: bigint) =>
  xdr.ScVal.scvMap(
    (
      [
        ['claim_delay_seconds', claimDelay],
        ['last_distribution_time', 0n],
        ['min_interval_seconds', 0n],
        ['round_expiry_seconds', expiry],
      ] as const
    ).map(([k, v]) => new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol(k), val: u64Arg(v) })),
  );

describe('agent journey on the running system: V2 marketplace, webhooks, crowdfunding', () => {
  let system: RunningSystem;
  let chain: ChainReader;
  let receiver: TestReceiver;

  const eventually = <T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 90_000) => waitFor(what, probe, timeoutMs, 200);

  // ---- an agent: only the SDK and HTTP ----
  const call = async (method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${system.apiUrl}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(key ? { 'x-api-key': key } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const ok = async (method: string, path: string, body: unknown, key: string): Promise<Json> => {
    const r = await call(method, path, body, key);
    if (r.status !== 200 && r.status !== 201) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  async function register(kp: Keypair, scopes: string[]): Promise<string> {
    const challenge = await call('GET', `/auth/challenge/${kp.publicKey()}`);
    const signature = Buffer.from(kp.signMessage(challenge.body.data.message)).toString('hex');
    const reg = await call('POST', '/auth/register', { wallet: kp.publicKey(), signature, label: 'journey agent', scopes });
    expect(reg.status).toBe(201);
    return reg.body.data.api_key.key as string;
  }
  const signLocally = (xdrText: string, kp: Keypair): string => {
    const tx = TransactionBuilder.fromXDR(xdrText, system.networkPassphrase) as Transaction;
    tx.sign(kp);
    return tx.toXDR();
  };
  const friendbot = async (kp: Keypair) => expect((await fetch(`${system.friendbotUrl}?addr=${kp.publicKey()}`)).status).toBe(200);
  /** The ledger clock: latestLedgerCloseTime of any transaction lookup. */
  const chainNow = async (): Promise<number> => Number((await chain.server.getTransaction('00'.repeat(32))).latestLedgerCloseTime);

  const settled = () => waitUntilSettled(system, 180_000);

  // ---- the webhook receiver's view ----
  const deliveries = (event: string): { req: ReceivedRequest; body: Json }[] =>
    receiver.requests.filter((r) => r.headers['x-svc-event'] === event).map((req) => ({ req, body: JSON.parse(req.raw.toString('utf8')) }));
  const awaitDelivery = (what: string, event: string, match: (data: Json) => boolean, timeoutMs?: number) =>
    eventually(`${event} webhook for ${what}`, async () => deliveries(event).find((d) => match(d.body.data)), timeoutMs);
  /** Both signatures verify over the raw bytes, and the body has exactly the spec's envelope. */
  async function verifySigned(req: ReceivedRequest): Promise<void> {
    const raw = req.raw.toString('utf8');
    const { verify } = await octokit();
    expect(await verify(SECRET, raw, req.headers['x-svc-signature'] as string)).toBe(true);
    const body = new Webhook(SECRET, { format: 'raw' }).verify(raw, req.headers as Record<string, string>) as Json;
    expect(Object.keys(body)).toEqual(['event', 'timestamp', 'delivery_id', 'data']);
    expect(req.headers['x-svc-delivery']).toBe(body.delivery_id);
    expect(req.headers['webhook-id']).toBe(body.delivery_id);
  }

  // V2 pool under trade: the Payroll pool (v2-pool-1), whose first holder's seeded listing was sold out.
  let pool: { address: string; token: string; name: string };
  const seller = seeded('v2-pool-1/holder-0');
  const admin = seeded('v2-pool-1/admin');
  const buyer = Keypair.random();
  let sellerKey: string;
  let buyerKey: string;
  const ptBalance = (holder: string) => chain.read<bigint>(pool.token, 'balance', addressArg(holder));

  const dataDir = mkdtempSync(join(tmpdir(), 'agent-journey-'));
  beforeAll(async () => {
    receiver = await startTestReceiver();
    const caFile = join(dataDir, 'receiver-ca.pem');
    writeFileSync(caFile, receiver.cert);
    system = await startSystem({
      dataDir,
      port: 0,
      devnetPort: 0,
      quiet: true,
      metricsToken: METRICS_TOKEN,
      ledgerIntervalMs: 1_000,
      webhook: loadAppConfig('all', {
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
        WEBHOOK_SSRF_ALLOW: 'localhost',
        WEBHOOK_CA_FILE: caFile,
        WEBHOOK_RETRY_SCHEDULE_MS: '500,500,500,500,500',
        WEBHOOK_POLL_MS: '100',
      }),
    });
    chain = new ChainReader(system.rpcUrl, system.networkPassphrase);
    const seededPool = system.devnet!.pools.find((p) => p.contract_kind === 'splitter_v2' && p.pool_type === 'payroll')!;
    pool = { address: seededPool.pool_address, token: seededPool.participation_token!, name: seededPool.name };
    await settled();
  });

  afterAll(async () => {
    await system?.stop();
    rmSync(dataDir, { recursive: true, force: true }); // ≈ 45 MB a run otherwise left in the temp folder
    await receiver?.close();
  });

  it('registers agents (challenge signed locally) and a webhook pointing at a local HTTPS receiver', async () => {
    await friendbot(buyer);
    [sellerKey, buyerKey] = await Promise.all([register(seller, ['read', 'trade']), register(buyer, ['read', 'trade'])]);
    const events = [
      'marketplace_sale_completed',
      'marketplace_listing_created',
      'claim_available',
      'distribution_created',
      'shares_transferred',
      'crowdfunding_failed',
    ];
    const hook = await ok('POST', '/webhooks', { url: `${receiver.origin}/journey`, events, secret: SECRET }, buyerKey);
    expect(hook).toMatchObject({ url: `${receiver.origin}/journey`, events, is_active: true });
    expect(hook.secret).toBeUndefined();
    // The test event proves the TLS trust and allow-list before any trade depends on them.
    await ok('POST', `/webhooks/${hook.id}/test`, undefined, buyerKey);
    const test = receiver.requests.find((r) => JSON.parse(r.raw.toString()).event === 'test');
    expect(test).toBeDefined();
  });

  let saleAddress: string;
  let escrowBefore: bigint;
  let sellerBefore: bigint;
  let buyHash: string;

  it('V2 list: prepare-list → sign → submit-list escrows the participation tokens in the splitter', async () => {
    [sellerBefore, escrowBefore] = await Promise.all([ptBalance(seller.publicKey()), ptBalance(pool.address)]);
    expect(sellerBefore).toBeGreaterThan(1_000n);
    expect(await chain.read(pool.address, 'get_listing', addressArg(seller.publicKey()))).toBeFalsy();

    const prepared = await ok(
      'POST',
      '/marketplace/prepare-list',
      { pool_address: pool.address, shares_amount: 1_000, price_per_share: '0.05', payment_token: 'USDC', network_id: NET },
      sellerKey,
    );
    expect(prepared.transaction_details).toEqual({
      pool_address: pool.address,
      shares_amount: 1_000,
      price_per_share: '0.05',
      total_listing_value: '50.00',
      payment_token: 'USDC',
    });
    const listed = await ok('POST', '/marketplace/submit-list', { signed_xdr: signLocally(prepared.xdr, seller), network_id: NET }, sellerKey);
    expect(listed).toMatchObject({ pool_address: pool.address, shares_listed: 1_000, price_per_share: '0.05', payment_token: 'USDC' });
    expect((await chain.server.getTransaction(listed.transaction_hash)).status).toBe('SUCCESS');
    saleAddress = listed.sale_address;

    // Escrow: the seller's PT balance moved into the splitter.
    expect(await ptBalance(seller.publicKey())).toBe(sellerBefore - 1_000n);
    expect(await ptBalance(pool.address)).toBe(escrowBefore + 1_000n);
    expect(await chain.read(pool.address, 'get_listing', addressArg(seller.publicKey()))).toMatchObject({
      shares_for_sale: 1_000n,
      price_per_share: USDC / 20n,
    });

    await eventually('the listing in the read API', async () => {
      const r = await call('GET', `/marketplace/listings/${pool.address}?network_id=${NET}`, undefined, buyerKey);
      return r.body.data?.find((l: Json) => l.sale_address === saleAddress && l.shares_amount === 1_000);
    });
    // V2 refuses a second listing (ListingAlreadyExists): the service says so before building.
    const again = await call(
      'POST',
      '/marketplace/prepare-list',
      { pool_address: pool.address, shares_amount: 1, price_per_share: '1', payment_token: 'USDC', network_id: NET },
      sellerKey,
    );
    expect([again.status, again.body.error?.code]).toEqual([409, 'CONFLICT']);
  });

  it('V2 buy: a faucet-funded buyer buys part; listing, membership and stats follow the chain', async () => {
    const statsBefore = (await call('GET', `/marketplace/stats/${pool.address}?network_id=${NET}`, undefined, buyerKey)).body.data;
    const usdcBefore = await chain.read<bigint>(system.devnet!.paymentToken, 'balance', addressArg(buyer.publicKey()));
    const prepared = await ok('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, amount: 400, network_id: NET }, buyerKey);
    expect(prepared.transaction_details).toEqual({
      listing_id: saleAddress,
      shares: 400,
      price_per_share: '0.05',
      total_cost: '20.00',
      payment_token: 'USDC',
      seller_address: seller.publicKey(),
    });
    const bought = await ok('POST', '/marketplace/submit-buy', { signed_xdr: signLocally(prepared.xdr, buyer), network_id: NET }, buyerKey);
    expect(bought).toMatchObject({ listing_id: saleAddress, shares_bought: 400, total_cost: '20.00', payment_token: 'USDC' });
    buyHash = bought.transaction_hash;
    expect((await chain.server.getTransaction(buyHash)).status).toBe('SUCCESS');

    // On chain: the buyer holds 400 PT (out of the escrow), 600 remain listed, the buyer paid 20 USDC.
    expect(await ptBalance(buyer.publicKey())).toBe(400n);
    expect(await ptBalance(pool.address)).toBe(escrowBefore + 600n);
    expect(await chain.read(pool.address, 'get_listing', addressArg(seller.publicKey()))).toMatchObject({ shares_for_sale: 600n });
    expect(usdcBefore - (await chain.read<bigint>(system.devnet!.paymentToken, 'balance', addressArg(buyer.publicKey())))).toBe(20n * USDC);

    await eventually('600 shares left in the listing', async () => {
      const r = await call('GET', `/marketplace/listings/${pool.address}?network_id=${NET}`, undefined, buyerKey);
      return r.body.data?.find((l: Json) => l.sale_address === saleAddress && l.shares_amount === 600);
    });
    await eventually('the buyer as a member with 400 shares', async () => {
      const r = await call('GET', `/pools/${pool.address}/members?network_id=${NET}&limit=100`, undefined, buyerKey);
      return r.body.data?.find((m: Json) => m.user_address === buyer.publicKey() && m.shares === 400);
    });
    const stats = await eventually('one more sale in the stats', async () => {
      const s = (await call('GET', `/marketplace/stats/${pool.address}?network_id=${NET}`, undefined, buyerKey)).body.data;
      return s.total_sales === statsBefore.total_sales + 1 ? s : undefined;
    });
    expect(stats.total_sales).toBe(statsBefore.total_sales + 1);
  });

  let raceHash: string;

  it('V2 cancel: a sale landing after prepare-cancel is reflected in shares_returned (the escrow the chain gave back); a stale buy fails as splitter_v2 NoActiveListing', async () => {
    // The buyer prepares one more small buy; the seller prepares the cancel in between.
    const small = await ok('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, amount: 100, network_id: NET }, buyerKey);
    const cancel = await ok('POST', '/marketplace/prepare-cancel', { listing_id: saleAddress, network_id: NET }, sellerKey);
    const atPrepare = await chain.read<{ shares_for_sale: bigint }>(pool.address, 'get_listing', addressArg(seller.publicKey()));
    expect(cancel.transaction_details).toEqual({ listing_id: saleAddress, shares_returned: Number(atPrepare.shares_for_sale) });

    // The small buy lands before the cancel: 500 shares are left in escrow when the cancel applies.
    raceHash = (await ok('POST', '/marketplace/submit-buy', { signed_xdr: signLocally(small.xdr, buyer), network_id: NET }, buyerKey)).transaction_hash;
    // The buyer prepares the rest (prepared after its previous transaction, so its sequence number is current).
    const late = await ok('POST', '/marketplace/prepare-buy', { listing_id: saleAddress, network_id: NET }, buyerKey);
    expect(late.transaction_details.shares).toBe(500);
    const sellerMid = await ptBalance(seller.publicKey());
    const cancelled = await ok('POST', '/marketplace/submit-cancel', { signed_xdr: signLocally(cancel.xdr, seller), network_id: NET }, sellerKey);
    expect((await chain.server.getTransaction(cancelled.transaction_hash)).status).toBe('SUCCESS');
    const returned = (await ptBalance(seller.publicKey())) - sellerMid;
    expect(returned).toBe(500n);
    expect(cancelled).toMatchObject({ listing_id: saleAddress, shares_returned: Number(returned) });

    // The escrow is empty again: 1,000 listed − 500 sold came back to the seller.
    expect(await ptBalance(seller.publicKey())).toBe(sellerBefore - 500n);
    expect(await ptBalance(pool.address)).toBe(escrowBefore);
    expect(await chain.read(pool.address, 'get_listing', addressArg(seller.publicKey()))).toBeFalsy();

    const failed = await call('POST', '/marketplace/submit-buy', { signed_xdr: signLocally(late.xdr, buyer), network_id: NET }, buyerKey);
    expect([failed.status, failed.body.error?.code]).toEqual([422, 'TRANSACTION_FAILED']);
    expect(failed.body.error.details.contract_error).toEqual({ code: 41, name: 'NoActiveListing', contract: 'splitter_v2' });
    expect(await ptBalance(buyer.publicKey())).toBe(500n);

    await eventually('the listing gone from the active listings', async () => {
      const r = await call('GET', `/marketplace/listings/${pool.address}?network_id=${NET}`, undefined, buyerKey);
      return r.status === 200 && !r.body.data.some((l: Json) => l.sale_address === saleAddress);
    });
    await eventually("the seller's membership back to its chain balance", async () => {
      const r = await call('GET', `/pools/${pool.address}/members?network_id=${NET}&limit=100`, undefined, buyerKey);
      return r.body.data?.find((m: Json) => m.user_address === seller.publicKey() && BigInt(m.shares) === sellerBefore - 500n);
    });
  });

  let transferHash: string;
  const friend = Keypair.random().publicKey();

  it("delivers the trades and a direct share transfer, signed, with exactly the spec's data fields", async () => {
    transferHash = (await chain.invoke(buyer, pool.address, 'transfer_shares', [addressArg(buyer.publicKey()), addressArg(friend), i128Arg(50n)])).hash;

    const listed = await awaitDelivery('the V2 listing', 'marketplace_listing_created', (d) => d.sale_address === saleAddress);
    await verifySigned(listed.req);
    expect(listed.body.data).toEqual({
      sale_address: saleAddress,
      pool_address: pool.address,
      pool_name: pool.name,
      network_id: NET,
      seller_address: seller.publicKey(),
      shares_amount: 1_000,
      price_per_share: '0.05',
      payment_token: 'USDC',
    });
    const sold = await awaitDelivery('the V2 sale', 'marketplace_sale_completed', (d) => d.transaction_hash === buyHash);
    await verifySigned(sold.req);
    expect(sold.body.data).toEqual({
      sale_address: saleAddress,
      pool_address: pool.address,
      pool_name: pool.name,
      network_id: NET,
      seller_address: seller.publicKey(),
      buyer_address: buyer.publicKey(),
      shares: 400,
      price_per_share: '0.05',
      total_price: '20.00',
      payment_token: 'USDC',
      transaction_hash: buyHash,
    });
    const moved = await awaitDelivery('the transfer', 'shares_transferred', (d) => d.transaction_hash === transferHash);
    await verifySigned(moved.req);
    expect(moved.body.data).toEqual({
      pool_address: pool.address,
      pool_name: pool.name,
      network_id: NET,
      from_address: buyer.publicKey(),
      to_address: friend,
      shares: 50,
      transaction_hash: transferHash,
    });
    // Escrow moves (seller → splitter at listing, splitter → buyer at sale, back at cancel) are not share transfers.
    await settled();
    expect(
      deliveries('shares_transferred')
        .filter((d) => d.body.data.pool_address === pool.address)
        .map((d) => d.body.data.transaction_hash),
    ).toEqual([transferHash]);
    // One delivery per event: each of the two sales arrived once.
    for (const hash of [buyHash, raceHash])
      expect(deliveries('marketplace_sale_completed').filter((d) => d.body.data.transaction_hash === hash)).toHaveLength(1);
  });

  let round: { id: bigint; total_amount: bigint; created_at: bigint; claimable_from: bigint; expires_at: bigint };

  it("the pool admin creates a V2 round with a short claim delay: distribution_created arrives with the spec's fields", async () => {
    const claimDelay = 20n;
    await chain.invoke(admin, pool.address, 'set_distribution_config', [distributionConfig(claimDelay, 31n * DAY)]);
    const before = await chain.read<bigint[]>(pool.address, 'get_active_rounds');
    await chain.invoke(admin, system.devnet!.paymentToken, 'transfer', [addressArg(admin.publicKey()), addressArg(pool.address), i128Arg(250n * USDC)]);
    await chain.invoke(admin, pool.address, 'create_distribution', [addressArg(system.devnet!.paymentToken)]);
    const id = (await chain.read<bigint[]>(pool.address, 'get_active_rounds')).find((r) => !before.includes(r))!;
    round = await chain.read(pool.address, 'get_round', u64Arg(BigInt(id)));
    expect(round.claimable_from - round.created_at).toBe(claimDelay);
    expect(await chain.read(pool.address, 'is_round_claimable', u64Arg(round.id))).toBe(false);
    const config = await chain.read<{ total_shares: bigint }>(pool.address, 'get_config');

    const created = await awaitDelivery('the new round', 'distribution_created', (d) => d.pool_address === pool.address && d.round_id === Number(round.id));
    await verifySigned(created.req);
    expect(created.body.data).toEqual({
      pool_address: pool.address,
      pool_name: pool.name,
      network_id: NET,
      round_id: Number(round.id),
      token: 'USDC',
      total_amount: decimalString(round.total_amount),
      total_shares: Number(config.total_shares),
      claimable_from: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(Date.parse(created.body.data.claimable_from)).toBe(Number(round.claimable_from) * 1000);
    expect(Date.parse(created.body.data.expires_at)).toBe(Number(round.expires_at) * 1000);
    // Not claimable yet, so no claim_available for it so far.
    expect(deliveries('claim_available').filter((d) => d.body.data.pool_address === pool.address && d.body.data.round_id === Number(round.id))).toHaveLength(0);
  });

  it('a fresh system lists the seeded open campaigns: one days from its deadline, one minutes from it, both partly funded', async () => {
    const open = (await ok('GET', `/pools/crowdfunding?network_id=${NET}`, undefined, buyerKey)) as Json[];
    const seeded = new Set(system.devnet!.pools.filter((p) => p.contract_kind === 'crowdfunding_v1').map((p) => p.pool_address));
    const campaigns = open.filter((c) => seeded.has(c.address));
    expect(campaigns).toHaveLength(2);
    const [closing, days] = campaigns; // deadline_asc
    const now = Date.now();
    expect(Date.parse(closing.deadline) - now).toBeLessThan(16 * 60_000);
    expect(Date.parse(days.deadline) - now).toBeGreaterThan(9 * 86_400_000);
    for (const c of campaigns) {
      expect(c).toMatchObject({ is_active: true, payment_token: 'USDC', contributor_count: 3 });
      expect(c.progress_percent).toBeGreaterThan(0);
      expect(c.progress_percent).toBeLessThan(100);
    }
    expect(closing.progress_percent).toBe(85);
  });

  it('crowdfunding: contributes to an open campaign, then reclaims after it fails', async () => {
    // The seeded open campaigns close minutes or days away, so an operator opens one (admin-op deploy + a signed
    // init) with a deadline a few ledgers away and a soft cap nobody reaches, to see it fail within the test.
    const campaignAdmin = Keypair.random();
    await friendbot(campaignAdmin);
    const campaign = system.devnet!.chain.deployContract('crowdfunding_v1', createHash('sha256').update(`agent-journey/${Date.now()}`).digest());
    const deadline = (await chainNow()) + 25;
    await chain.invoke(campaignAdmin, campaign, 'init', [
      addressArg(campaignAdmin.publicKey()),
      addressArg(system.devnet!.paymentToken),
      i128Arg(USDC),
      i128Arg(1_000n),
      i128Arg(2_000n),
      u64Arg(BigInt(deadline)),
      xdr.ScVal.scvU32(0),
    ]);
    await eventually('the campaign in the read API', async () => {
      const r = await call('GET', `/pools/crowdfunding?network_id=${NET}&status=all`, undefined, buyerKey);
      return r.body.data?.some((c: Json) => c.address === campaign);
    });
    const usdc = () => chain.read<bigint>(system.devnet!.paymentToken, 'balance', addressArg(buyer.publicKey()));
    const usdcBefore = await usdc();

    const prepared = await ok('POST', '/crowdfunding/prepare-contribute', { pool_address: campaign, amount: '12.5', network_id: NET }, buyerKey);
    expect(prepared.transaction_details).toMatchObject({
      pool_address: campaign,
      amount: '12.00',
      payment_token: 'USDC',
      estimated_shares: 12,
      current_raised: '0.00',
      target_amount: '1000.00',
    });
    const done = await ok('POST', '/crowdfunding/submit-contribute', { signed_xdr: signLocally(prepared.xdr, buyer), network_id: NET }, buyerKey);
    expect(done).toMatchObject({ pool_address: campaign, amount_contributed: '12.00', payment_token: 'USDC', shares_allocated: 12, new_total_raised: '12.00' });
    expect(await chain.read<bigint>(campaign, 'get_contribution', addressArg(buyer.publicKey()))).toBe(12n);
    expect(usdcBefore - (await usdc())).toBe(12n * USDC);

    // Before the deadline the campaign is not failed: nothing to reclaim yet.
    const early = await call('POST', '/crowdfunding/prepare-reclaim', { pool_address: campaign, network_id: NET }, buyerKey);
    expect([early.status, early.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);

    await eventually('the deadline on the ledger clock', async () => (await chainNow()) > deadline + 1, 60_000);
    const anyone = Keypair.random();
    await friendbot(anyone);
    await chain.invoke(anyone, campaign, 'finalize', []);
    expect(Number(await chain.read(campaign, 'get_status'))).toBe(2); // Failed

    const reclaim = await ok('POST', '/crowdfunding/prepare-reclaim', { pool_address: campaign, network_id: NET }, buyerKey);
    expect(reclaim.transaction_details).toMatchObject({ pool_address: campaign, amount: '12.00', payment_token: 'USDC', shares: 12 });
    const back = await ok('POST', '/crowdfunding/submit-reclaim', { signed_xdr: signLocally(reclaim.xdr, buyer), network_id: NET }, buyerKey);
    expect(back).toMatchObject({ pool_address: campaign, amount_reclaimed: '12.00', payment_token: 'USDC', shares_refunded: 12 });
    expect(await usdc()).toBe(usdcBefore);
    expect(await chain.read<bigint>(campaign, 'get_contribution', addressArg(buyer.publicKey()))).toBe(0n);

    // The failure reaches the webhook once, whether the scheduler (deadline passed, not finalized) or the
    // finalize transaction told the notifier first.
    const failure = await awaitDelivery('the failed campaign', 'crowdfunding_failed', (d) => d.pool_address === campaign);
    await verifySigned(failure.req);
    expect(failure.body.data).toEqual({
      pool_address: campaign,
      pool_name: null,
      network_id: NET,
      total_raised: '12.00',
      target_amount: '1000.00',
      contributor_count: 1,
      refund_status: 'processing',
    });
    await settled();
    expect(deliveries('crowdfunding_failed').filter((d) => d.body.data.pool_address === campaign)).toHaveLength(1);
  });

  it("claim_available arrives once the round's claim delay has passed, after distribution_created, with the spec's fields", async () => {
    const available = await awaitDelivery(
      'the new round',
      'claim_available',
      (d) => d.pool_address === pool.address && d.round_id === Number(round.id),
      60_000,
    );
    await verifySigned(available.req);
    const config = await chain.read<{ total_shares: bigint }>(pool.address, 'get_config');
    expect(available.body.data).toEqual({
      pool_address: pool.address,
      pool_name: pool.name,
      network_id: NET,
      round_id: Number(round.id),
      token: 'USDC',
      total_amount: decimalString(round.total_amount),
      amount_per_share: decimalString(round.total_amount / config.total_shares),
      expires_at: expect.any(String),
    });
    expect(Date.parse(available.body.data.expires_at)).toBe(Number(round.expires_at) * 1000);
    console.log(`claim_available arrived ${available.req.receivedAt - Number(round.claimable_from) * 1000} ms after claimable_from (scheduler tick 2 s)`);
    // Not before the round opened, and after its distribution_created.
    expect(available.req.receivedAt).toBeGreaterThanOrEqual(Number(round.claimable_from) * 1000);
    const created = deliveries('distribution_created').find((d) => d.body.data.pool_address === pool.address && d.body.data.round_id === Number(round.id))!;
    expect(available.req.receivedAt).toBeGreaterThan(created.req.receivedAt);
    // The chain agrees: the round is claimable, and a holder can claim it now.
    expect(await chain.read(pool.address, 'is_round_claimable', u64Arg(round.id))).toBe(true);
    const claimer = seeded('v2-pool-1/holder-1');
    const expected = await chain.read<bigint>(pool.address, 'get_claimable', addressArg(claimer.publicKey()), u64Arg(round.id));
    expect(expected).toBeGreaterThan(0n);
    await chain.invoke(claimer, pool.address, 'claim', [addressArg(claimer.publicKey()), u64Arg(round.id)]);
    expect(await chain.read(pool.address, 'get_claimable', addressArg(claimer.publicKey()), u64Arg(round.id))).toBe(0n);
    // Exactly once.
    expect(deliveries('claim_available').filter((d) => d.body.data.pool_address === pool.address && d.body.data.round_id === Number(round.id))).toHaveLength(1);
  });
  it('/metrics shows the operations series with real values after the journey', async () => {
    const url = system.apiUrl.replace('/api/agent', '/metrics');
    expect((await fetch(url)).status).toBe(401); // not public on the API port (issue 29)
    const text = await (await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const sum = (prefix: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(prefix))
        .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    expect(
      sum('http_request_duration_seconds_count{app="all",method="POST",route="/api/agent/crowdfunding/submit-contribute",status="200"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(sum('indexer_events_ingested_total{network_id="9"')).toBeGreaterThan(100);
    expect(text).toMatch(/^indexer_ledger_lag\{network_id="9",app="all"\} \d+$/m);
    expect(text).toMatch(/^projection_lag_events\{projection="crowdfunding",app="all"\} \d+$/m);
    expect(text).toMatch(/^projection_lag_events\{projection="webhook_fanout",app="all"\} \d+$/m);
    expect(text).toMatch(/^webhook_queue_depth\{app="all"\} \d+$/m);
    expect(sum('webhook_deliveries_total{outcome="success"')).toBeGreaterThanOrEqual(5);
    expect(sum('webhook_delivery_duration_seconds_count{app="all",outcome="success"}')).toBeGreaterThanOrEqual(5);
    expect(sum('event_store_append_duration_seconds_count{app="all",operation="appendMany",result="ok"}')).toBeGreaterThan(0);
    expect(text).toMatch(/^rate_limit_refusals_total\{bucket="key",app="all"\} \d+$/m);
  });
});
