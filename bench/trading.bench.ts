/**
 * Trading benchmark: prepare and submit latency (p50/p99) of the real use cases against the devnet over HTTP RPC
 * (stellar-rpc adapter, SQL memory on PGlite), and ed25519 signature checks per second, node:crypto vs the SDK's
 * Keypair.verify, in the same run. Pool lookup is a fixed in-memory resolver for the one campaign the bench opens
 * (a single indexed SQL lookup in production; the chain round trips are what is measured here).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Address, Contract, Keypair, nativeToScVal, rpc, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { startDevnet } from '@dob/devnet';
import { createPgliteDatabase } from '@dob/sql';
import { SqlPreparedTransactions, StellarNetworks, StellarRpcGateway, TradingService, verifyAccountSignature, type PoolLookup } from '@dob/trading';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

const ITERATIONS = 30;
const SIGNATURE_CHECKS = 20_000;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!.toFixed(2);
};
const summary = (xs: number[]) => ({ n: xs.length, p50_ms: pct(xs, 50), p99_ms: pct(xs, 99), max_ms: +Math.max(...xs).toFixed(2) });

function signatureChecks() {
  const kp = Keypair.random();
  const messages = Array.from({ length: 64 }, () => randomBytes(32));
  const sigs = messages.map((m) => Buffer.from(kp.sign(m)));
  const measure = (verify: (m: Buffer, s: Buffer) => boolean) => {
    const t = process.hrtime.bigint();
    for (let i = 0; i < SIGNATURE_CHECKS; i++) if (!verify(messages[i % 64]!, sigs[i % 64]!)) throw new Error('signature did not verify');
    return Math.round(SIGNATURE_CHECKS / (Number(process.hrtime.bigint() - t) / 1e9));
  };
  const native = measure((m, s) => verifyAccountSignature(kp.publicKey(), m, s));
  const sdk = measure((m, s) => kp.verify(m, s));
  return { checks: SIGNATURE_CHECKS, native_node_crypto_per_s: native, sdk_keypair_verify_per_s: sdk, speedup: +(native / sdk).toFixed(2) };
}

export async function run(): Promise<object> {
  const machine = startMachineRecord();
  const devnet = await startDevnet({ port: 0, ledgerIntervalMs: 100 });
  const db = await createPgliteDatabase();
  try {
    const server = new rpc.Server(devnet.rpcUrl, { allowHttp: true });
    const fund = async (kp: Keypair) => fetch(`${devnet.friendbotUrl}?addr=${kp.publicKey()}`);
    const admin = Keypair.random();
    const agent = Keypair.random();
    await fund(admin);
    await fund(agent);
    const campaign = devnet.chain.deployContract('crowdfunding_v1', createHash('sha256').update(`bench/${Date.now()}`).digest());
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 86_400 * 30);
    const init = new TransactionBuilder(await server.getAccount(admin.publicKey()), { fee: '100', networkPassphrase: devnet.networkPassphrase })
      .addOperation(
        new Contract(campaign).call(
          'init',
          new Address(admin.publicKey()).toScVal(),
          new Address(devnet.paymentToken).toScVal(),
          nativeToScVal(10_000_000n, { type: 'i128' }),
          nativeToScVal(100_000n, { type: 'i128' }),
          nativeToScVal(200_000n, { type: 'i128' }),
          xdr.ScVal.scvU64(deadline),
          xdr.ScVal.scvU32(0),
        ),
      )
      .setTimeout(60)
      .build();
    const prepared = await server.prepareTransaction(init);
    prepared.sign(admin);
    await server.pollTransaction((await server.sendTransaction(prepared)).hash, { attempts: 100, sleepStrategy: () => 50 });

    const pools: PoolLookup = {
      find: async (_n, address) =>
        address === campaign ? { kind: 'crowdfunding', networkId: 9, address, name: 'bench', paymentToken: devnet.paymentToken } : null,
    };
    const trading = new TradingService({
      networks: new StellarNetworks([
        {
          id: 9,
          rpcUrl: devnet.rpcUrl,
          passphrase: devnet.networkPassphrase,
          explorerUrl: 'https://stellar.expert/explorer/testnet',
          tokens: [{ symbol: 'USDC', address: devnet.paymentToken, decimals: 7 }],
        },
      ]),
      chain: new StellarRpcGateway(),
      listings: { findBySaleAddress: async () => null },
      pools,
      prepared: await SqlPreparedTransactions.open(db),
      pollIntervalMs: 50,
    });
    const caller = { keyId: 'ak_bench', wallet: agent.publicKey() };
    const prepareMs: number[] = [];
    const submitMs: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      let t = performance.now();
      const p = await trading.prepare.prepareContribute(caller, { pool_address: campaign, amount: '1', network_id: 9 });
      prepareMs.push(performance.now() - t);
      const tx = TransactionBuilder.fromXDR(p.xdr, devnet.networkPassphrase) as Transaction;
      tx.sign(agent);
      t = performance.now();
      await trading.submitter.submit('contribute', caller, { signed_xdr: tx.toXDR(), network_id: 9 });
      submitMs.push(performance.now() - t);
    }
    const signatures = signatureChecks();
    const result = {
      benchmark: 'trading',
      at: new Date().toISOString(),
      machine: machine(),
      parameters: {
        iterations: ITERATIONS,
        devnet_ledger_interval_ms: 100,
        submit_poll_interval_ms: 50,
        flow: 'prepare-contribute → sign → submit-contribute, one wallet, sequential',
      },
      notes:
        'prepare = getAccount ∥ campaign reads, balance read, simulate+assemble, SQL insert; submit = SQL find/claim, sendTransaction, getTransaction polling until the ledger closes, SQL finish. Submit latency is bounded below by the ledger close interval.',
      prepare: summary(prepareMs),
      submit: summary(submitMs),
      signature_verification: signatures,
    };
    writeBenchResult('trading', result);
    return result;
  } finally {
    await devnet.stop();
    await db.close();
  }
}

runWhenMain(module, run);
