import { Address, Contract, Keypair, nativeToScVal, rpc, scValToNative, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { startDevnet, type RunningDevnet } from '../start-devnet';
import { CLOSING_CAMPAIGN_SECONDS } from '../seeder/seed-open-campaigns';

/**
 * The seeded open campaigns over RPC, and the keeper that finalizes seeded campaigns once their deadline passes:
 * topped up to its soft cap, the closing campaign succeeds (cf_done status 1); the 10-day one stays open.
 */
describe('seeded open campaigns and the campaign keeper', () => {
  let devnet: RunningDevnet;
  let server: rpc.Server;
  // Seed order (seed-open-campaigns.ts): the open campaign, then the closing one, last among the campaigns.
  let open: string;
  let closing: string;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, seed: 7, ledgerIntervalMs: 100 });
    server = new rpc.Server(devnet.rpcUrl, { allowHttp: true });
    [open, closing] = devnet.pools
      .filter((p) => p.contract_kind === 'crowdfunding_v1')
      .slice(-2)
      .map((p) => p.pool_address) as [string, string];
  });
  afterAll(async () => devnet?.stop());

  async function invoke(kp: Keypair, contractId: string, fn: string, args: xdr.ScVal[], simulateOnly = false): Promise<unknown> {
    const tx = new TransactionBuilder(await server.getAccount(kp.publicKey()), { fee: '100', networkPassphrase: devnet.networkPassphrase })
      .addOperation(new Contract(contractId).call(fn, ...args))
      .setTimeout(60)
      .build();
    if (simulateOnly) {
      const sim = await server.simulateTransaction(tx);
      if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(sim.error);
      return scValToNative(sim.result!.retval);
    }
    const prepared = await server.prepareTransaction(tx);
    prepared.sign(kp);
    const sent = await server.sendTransaction(prepared);
    const final = await server.pollTransaction(sent.hash, { attempts: 100, sleepStrategy: () => 100 });
    expect(final.status).toBe('SUCCESS');
    return undefined;
  }

  const cfDone = async (campaign: string) => {
    const page = await server.getEvents({
      startLedger: (await server.getHealth()).oldestLedger,
      filters: [{ type: 'contract', contractIds: [campaign], topics: [[xdr.ScVal.scvSymbol('cf_done').toXDR('base64'), '*']] }],
      limit: 10,
    });
    return page.events.map((e) => scValToNative(e.value) as [number, bigint, bigint]);
  };

  it('seeds both campaigns still fundraising, partly funded, deadlines after wall time', async () => {
    const reader = Keypair.random();
    expect((await fetch(`${devnet.friendbotUrl}?addr=${reader.publicKey()}`)).status).toBe(200);
    const now = BigInt(Math.floor(Date.now() / 1000));
    for (const [campaign, raised, minDeadline, maxDeadline] of [
      [closing, 850n, now, now + CLOSING_CAMPAIGN_SECONDS + 60n],
      [open, undefined, now + 9n * 86_400n, now + 11n * 86_400n],
    ] as const) {
      expect(Number(await invoke(reader, campaign, 'get_status', [], true))).toBe(0); // Fundraising
      const config = (await invoke(reader, campaign, 'get_config', [], true)) as { deadline: bigint; total_shares_sold: bigint; soft_cap_shares: bigint };
      expect(config.deadline).toBeGreaterThan(minDeadline);
      expect(config.deadline).toBeLessThan(maxDeadline);
      if (raised !== undefined) expect(config.total_shares_sold).toBe(raised);
      expect(config.total_shares_sold).toBeGreaterThan(0n);
      expect(config.total_shares_sold).toBeLessThan(config.soft_cap_shares);
    }
  });

  it('finalizes the closing campaign once its deadline passes on the ledger clock; succeeded when topped up', async () => {
    const backer = Keypair.random();
    expect((await fetch(`${devnet.friendbotUrl}?addr=${backer.publicKey()}`)).status).toBe(200);
    await invoke(backer, closing, 'contribute', [new Address(backer.publicKey()).toScVal(), nativeToScVal(150n, { type: 'i128' })]);
    expect(await cfDone(closing)).toEqual([]);
    // Time control: later ledgers close past the deadline.
    devnet.chain.setClockOffset(CLOSING_CAMPAIGN_SECONDS + 120n);
    const deadline = Date.now() + 30_000;
    let done = await cfDone(closing);
    while (done.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      done = await cfDone(closing);
    }
    expect(done).toEqual([[1, 1_000n, 1_000n * 10_000_000n]]); // Succeeded: 1,000 shares sold, 1,000 USDC raised
    expect(await cfDone(open)).toEqual([]);
  });
});
