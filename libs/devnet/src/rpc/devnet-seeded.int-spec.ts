import { Address, Contract, Keypair, nativeToScVal, rpc, scValToNative, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { startDevnet, type RunningDevnet } from '../start-devnet';

/** A seeded devnet, driven only through @stellar/stellar-sdk: buy from a seeded listing like an agent would. */
describe('seeded devnet: buying a listed share over RPC', () => {
  let devnet: RunningDevnet;
  let server: rpc.Server;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, seed: 42, ledgerIntervalMs: 200 });
    server = new rpc.Server(devnet.rpcUrl, { allowHttp: true });
  });
  afterAll(async () => devnet.stop());

  async function readOnly(source: string, contractId: string, fn: string, ...args: xdr.ScVal[]) {
    const tx = new TransactionBuilder(await server.getAccount(source), { fee: '100', networkPassphrase: devnet.networkPassphrase })
      .addOperation(new Contract(contractId).call(fn, ...args))
      .setTimeout(60)
      .build();
    const sim = await server.simulateTransaction(tx);
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(sim.error);
    return scValToNative(sim.result!.retval) as unknown;
  }

  it('exposes seeded pool metadata for every access and distribution type', () => {
    expect(devnet.pools.length).toBeGreaterThanOrEqual(8);
    expect(new Set(devnet.pools.map((p) => p.access_type))).toEqual(new Set(['rtj', 'p', 'qr', 'stk']));
    expect(new Set(devnet.pools.map((p) => p.distribution_type))).toEqual(new Set(['tr', 'bt', 'dam']));
    expect(new Set(devnet.pools.map((p) => p.contract_kind))).toEqual(new Set(['splitter_v1_2', 'splitter_v1_3', 'splitter_v2', 'crowdfunding_v1']));
  });

  it('buys shares from a seeded listing: prepare, sign, send, poll SUCCESS, then the sold and transfer events', async () => {
    const buyer = Keypair.random();
    expect((await fetch(`${devnet.friendbotUrl}?addr=${buyer.publicKey()}`)).status).toBe(200);
    const pool = devnet.pools[0].pool_address;
    const sales = (await readOnly(buyer.publicKey(), pool, 'list_all_sales')) as { seller: string; shares_for_sale: bigint; price_per_share: bigint }[];
    expect(sales.length).toBeGreaterThan(0);
    const listing = sales[0];
    const amount = 5n;

    const tx = new TransactionBuilder(await server.getAccount(buyer.publicKey()), { fee: '100', networkPassphrase: devnet.networkPassphrase })
      .addOperation(
        new Contract(pool).call(
          'buy_shares',
          new Address(buyer.publicKey()).toScVal(),
          new Address(listing.seller).toScVal(),
          nativeToScVal(amount, { type: 'i128' }),
        ),
      )
      .setTimeout(120)
      .build();
    const prepared = await server.prepareTransaction(tx);
    prepared.sign(buyer);
    const sent = await server.sendTransaction(prepared);
    expect(sent.status).toBe('PENDING');
    const final = await server.pollTransaction(sent.hash, { attempts: 60, sleepStrategy: () => 100 });
    expect(final.status).toBe('SUCCESS');
    if (final.status !== 'SUCCESS') return;

    const page = await server.getEvents({ startLedger: final.ledger, filters: [], limit: 100 });
    const events = page.events.filter((e) => e.txHash === sent.hash);
    const sold = events.find((e) => scValToNative(e.topic[0]) === 'sold');
    expect(sold?.contractId?.contractId()).toBe(pool);
    expect(sold!.topic.map((t) => scValToNative(t))).toEqual(['sold', listing.seller, buyer.publicKey()]);
    expect(scValToNative(sold!.value)).toEqual([amount, amount * listing.price_per_share, devnet.paymentToken]);
    const transfers = events.filter((e) => e.contractId?.contractId() === devnet.paymentToken && scValToNative(e.topic[0]) === 'transfer');
    expect(transfers.length).toBeGreaterThanOrEqual(1);
    expect(scValToNative(transfers[0].topic[1])).toBe(buyer.publicKey());
    expect(scValToNative(transfers[0].topic[3])).toBe(`USDC:${(await import('../devnet-identities')).usdcIssuer().publicKey()}`);

    const share = await readOnly(buyer.publicKey(), pool, 'get_share', new Address(buyer.publicKey()).toScVal());
    expect(share).toBe(amount);
  });
});
