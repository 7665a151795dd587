import { Account, Address, Contract, Keypair, nativeToScVal, rpc, scValToNative, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { startDevnet, type RunningDevnet } from '../start-devnet';

/**
 * The devnet over HTTP, with @stellar/stellar-sdk as the only client: what an agent developer or our indexer does
 * against testnet, only URL and passphrase differ.
 */
describe('devnet Stellar RPC over HTTP', () => {
  let devnet: RunningDevnet;
  let server: rpc.Server;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, ledgerIntervalMs: 200 });
    server = new rpc.Server(devnet.rpcUrl, { allowHttp: true });
  });
  afterAll(async () => devnet.stop());

  const friendbot = async (addr: string) => fetch(`${devnet.friendbotUrl}?addr=${addr}`);
  const balanceOf = async (holder: string): Promise<bigint> => {
    const tx = new TransactionBuilder(await server.getAccount(funder.publicKey()), { fee: '100', networkPassphrase: devnet.networkPassphrase })
      .addOperation(new Contract(devnet.paymentToken).call('balance', nativeToScVal(holder, { type: 'address' })))
      .setTimeout(60)
      .build();
    const sim = await server.simulateTransaction(tx);
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(sim.error);
    return scValToNative(sim.result!.retval) as bigint;
  };
  const funder = Keypair.random();

  async function transferTx(from: Keypair, to: string, amount: bigint, opts: { passphrase?: string; timeoutSeconds?: number } = {}): Promise<Transaction> {
    const account = await server.getAccount(from.publicKey());
    const built = new TransactionBuilder(account, { fee: '100', networkPassphrase: opts.passphrase ?? devnet.networkPassphrase })
      .addOperation(
        new Contract(devnet.paymentToken).call(
          'transfer',
          nativeToScVal(from.publicKey(), { type: 'address' }),
          nativeToScVal(to, { type: 'address' }),
          nativeToScVal(amount, { type: 'i128' }),
        ),
      )
      .setTimeout(opts.timeoutSeconds ?? 60)
      .build();
    // prepareTransaction simulates on the devnet; with a foreign passphrase assemble against the same data.
    const sim = await server.simulateTransaction(built);
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(sim.error);
    return rpc.assembleTransaction(built, sim).build();
  }

  it('reports network, health and the latest ledger like stellar-rpc', async () => {
    const network = await server.getNetwork();
    expect(network.passphrase).toBe('Standalone Network ; February 2017');
    expect(network.friendbotUrl).toBe(devnet.friendbotUrl);
    expect(network.protocolVersion).toBeGreaterThanOrEqual(22);
    const health = await server.getHealth();
    expect(health.status).toBe('healthy');
    const latest = await server.getLatestLedger();
    expect(latest.sequence).toBeGreaterThanOrEqual(1);
    expect(latest.id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('funds a new wallet with XLM and test USDC, once', async () => {
    const res = await friendbot(funder.publicKey());
    expect(res.status).toBe(200);
    const account = await server.getAccount(funder.publicKey());
    expect(BigInt(account.sequenceNumber())).toBeGreaterThan(0n);
    expect(await balanceOf(funder.publicKey())).toBe(10_000n * 10_000_000n);
    const again = await friendbot(funder.publicKey());
    expect(again.status).toBe(400);
    expect(((await again.json()) as { detail: string }).detail).toMatch(/already funded/);
  });

  it('prepares, signs, sends and polls a contract call to SUCCESS, then serves its events', async () => {
    const receiver = Keypair.random();
    await friendbot(receiver.publicKey());
    const account = await server.getAccount(funder.publicKey());
    const tx = new TransactionBuilder(account, { fee: '100', networkPassphrase: devnet.networkPassphrase })
      .addOperation(
        new Contract(devnet.paymentToken).call(
          'transfer',
          nativeToScVal(funder.publicKey(), { type: 'address' }),
          nativeToScVal(receiver.publicKey(), { type: 'address' }),
          nativeToScVal(25_0000000n, { type: 'i128' }),
        ),
      )
      .setTimeout(60)
      .build();
    const prepared = await server.prepareTransaction(tx);
    prepared.sign(funder);
    const sent = await server.sendTransaction(prepared);
    expect(sent.status).toBe('PENDING');
    const final = await server.pollTransaction(sent.hash, { attempts: 50, sleepStrategy: () => 100 });
    expect(final.status).toBe('SUCCESS');
    if (final.status !== 'SUCCESS') return;
    expect(final.returnValue?.type).toBe('scvVoid');
    expect(await balanceOf(receiver.publicKey())).toBe(10_025n * 10_000_000n);

    const events = await server.getEvents({
      startLedger: final.ledger,
      filters: [{ type: 'contract', contractIds: [devnet.paymentToken], topics: [[xdr.ScVal.scvSymbol('transfer').toXdr('base64'), '*', '*', '**']] }],
      limit: 10,
    });
    const mine = events.events.filter((e) => e.txHash === sent.hash);
    expect(mine).toHaveLength(1);
    expect(scValToNative(mine[0].topic[1])).toBe(funder.publicKey());
    expect(scValToNative(mine[0].topic[2])).toBe(receiver.publicKey());
    expect(scValToNative(mine[0].value)).toBe(25_0000000n);
    expect(mine[0].id).toMatch(/^\d{19}-\d{10}$/);
    const got = await server.getTransaction(sent.hash);
    expect(got.status).toBe('SUCCESS');
  });

  it('rejects a wrong signer, a foreign passphrase, a stale sequence and an expired tx without changing state', async () => {
    const receiver = Keypair.random().publicKey();
    const before = await server.getAccount(funder.publicKey());
    const balanceBefore = await balanceOf(funder.publicKey());

    const wrongSigner = await transferTx(funder, receiver, 1n);
    wrongSigner.sign(Keypair.random());
    const r1 = await server.sendTransaction(wrongSigner);
    expect(r1.status).toBe('ERROR');
    expect(r1.errorResult?.result.type).toBe('txBadAuth');

    const foreign = await transferTx(funder, receiver, 1n, { passphrase: 'Test SDF Network ; September 2015' });
    foreign.sign(funder);
    const r2 = await server.sendTransaction(foreign);
    expect(r2.status).toBe('ERROR');
    expect(r2.errorResult?.result.type).toBe('txBadAuth');

    const expired = await transferTx(funder, receiver, 1n, { timeoutSeconds: 1 });
    expired.sign(funder);
    await new Promise((r) => setTimeout(r, 2500));
    const r3 = await server.sendTransaction(expired);
    expect(r3.status).toBe('ERROR');
    expect(r3.errorResult?.result.type).toBe('txTooLate');

    const after = await server.getAccount(funder.publicKey());
    expect(after.sequenceNumber()).toBe(before.sequenceNumber());
    expect(await balanceOf(funder.publicKey())).toBe(balanceBefore);
    expect(await balanceOf(receiver)).toBe(0n);

    const stale = new TransactionBuilder(new Account(funder.publicKey(), (BigInt(before.sequenceNumber()) - 1n).toString()), {
      fee: '100000',
      networkPassphrase: devnet.networkPassphrase,
    })
      .addOperation(
        new Contract(devnet.paymentToken).call(
          'transfer',
          new Address(funder.publicKey()).toScVal(),
          new Address(receiver).toScVal(),
          nativeToScVal(1n, { type: 'i128' }),
        ),
      )
      .setTimeout(60)
      .build();
    const staleSim = await server.simulateTransaction(stale);
    if (!rpc.Api.isSimulationSuccess(staleSim)) throw new Error(staleSim.error);
    const staleTx = rpc.assembleTransaction(stale, staleSim).build();
    staleTx.sign(funder);
    const r4 = await server.sendTransaction(staleTx);
    expect(r4.status).toBe('ERROR');
    expect(r4.errorResult?.result.type).toBe('txBadSeq');
    expect((await server.getAccount(funder.publicKey())).sequenceNumber()).toBe(before.sequenceNumber());
  });
});
