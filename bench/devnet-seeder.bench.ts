/**
 * Devnet seeder throughput: time to build N contract events of history through signed transactions applied by
 * the chain (validation incl. ed25519 checks, host execution with footprint enforcement, ledger close), in memory.
 *   node -r @swc-node/register bench/devnet-seeder.bench.ts [targetEvents] [budgetSeconds]
 *   → bench/results/devnet-seeder.json
 * The 1,000,000-event target stops at the time budget on slow machines; the result then records the largest N
 * reached and the rate, with `reachedTarget: false`.
 * Baselines in the same run, over the same number of transactions: (a) only building + signing the envelopes
 * (the seeder's bulk path without the chain), (b) the wallet path (simulate → assembleTransaction → sign) on a
 * sample, extrapolated — what the seeder did for every transaction before the bulk path.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createSorobanHost, DevnetChain, STANDALONE_PASSPHRASE, USDC_CODE, usdcIssuer, FAUCET_XLM_STROOPS } from '@dob/devnet';
import { Account, Contract, Keypair, nativeToScVal, rpc, TransactionBuilder, Address } from '@stellar/stellar-sdk';
import { seedDevnet } from '../libs/devnet/src/seeder/seed-devnet';
import { directEnvelope, sorobanDataBytes } from '../libs/devnet/src/seeder/direct-envelope';
import { simulateTransaction } from '../libs/devnet/src/chain/simulate';
import { signTransaction } from '../libs/devnet/src/chain/ed25519';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

class BudgetReached extends Error {}

export async function run(targetEvents = Number(process.argv[2] ?? 1_000_000), budgetSeconds = Number(process.argv[3] ?? 600)) {
  const machine = startMachineRecord();
  const host = createSorobanHost({ networkPassphrase: STANDALONE_PASSPHRASE });
  const chain = new DevnetChain({ host, networkPassphrase: STANDALONE_PASSPHRASE, retentionLedgers: 10_000_000, clockOffsetSeconds: -400n * 86_400n });
  const issuer = usdcIssuer();
  chain.createAccount(issuer.publicKey(), FAUCET_XLM_STROOPS * 1000n);
  const paymentToken = chain.deployStellarAsset(USDC_CODE, issuer.publicKey());
  chain.genesis();

  const started = performance.now();
  const samples: { events: number; seconds: number }[] = [];
  let lastSample = 0;
  let reachedTarget = true;
  try {
    seedDevnet(chain, {
      seed: 7,
      paymentToken,
      issuer,
      events: targetEvents,
      onProgress: (events) => {
        const seconds = (performance.now() - started) / 1000;
        if (events - lastSample >= 50_000) {
          samples.push({ events, seconds: Number(seconds.toFixed(1)) });
          lastSample = events;
          console.log(`${events} events in ${seconds.toFixed(1)} s`);
        }
        if (seconds > budgetSeconds) throw new BudgetReached();
      },
    });
  } catch (err) {
    if (!(err instanceof BudgetReached)) throw err;
    reachedTarget = false;
  }
  const seconds = (performance.now() - started) / 1000;
  const events = chain.history.eventCount;
  const memory = process.memoryUsage();
  const baselines = measureBaselines(chain, paymentToken, issuer, chain.appliedTransactionCount);
  const result = {
    benchmark: 'devnet-seeder',
    date: new Date().toISOString(),
    machine: machine(),
    parameters: { targetEvents, budgetSeconds },
    reachedTarget,
    events,
    transactions: chain.appliedTransactionCount,
    ledgers: chain.latestLedger().sequence,
    seconds: Number(seconds.toFixed(1)),
    eventsPerSecond: Math.round(events / seconds),
    transactionsPerSecond: Math.round(chain.appliedTransactionCount / seconds),
    heapUsedMb: Math.round(memory.heapUsed / 2 ** 20),
    rssMb: Math.round(memory.rss / 2 ** 20),
    loadAverage1m: Number(os.loadavg()[0]!.toFixed(2)),
    baselines,
    samples,
  };
  writeBenchResult('devnet-seeder', result);
  return result;
}

/** Cost of the same number of transactions without the chain: build + sign only, and the per-tx wallet path. */
function measureBaselines(chain: DevnetChain, token: string, issuer: Keypair, transactions: number) {
  const holder = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 0xb7));
  const args = [new Address(issuer.publicKey()).toScVal(), new Address(holder.publicKey()).toScVal(), nativeToScVal(1n, { type: 'i128' })];
  const account = chain.hostView.getAccount(issuer.publicKey())!;
  const draft = () =>
    new TransactionBuilder(new Account(issuer.publicKey(), account.sequence.toString()), { fee: '100', networkPassphrase: chain.networkPassphrase })
      .addOperation(new Contract(token).call('transfer', ...args))
      .setTimeout(0)
      .build();
  const sim = simulateTransaction(chain.hostView, draft().toXDR(), chain.nextLedgerInfo());
  if (!sim.ok) throw new Error(sim.error);
  const sorobanData = sorobanDataBytes(sim.transactionData);
  let t = performance.now();
  for (let i = 0; i < transactions; i++) {
    directEnvelope(
      {
        signer: issuer,
        sequence: account.sequence + 1n + BigInt(i),
        fee: 100n + BigInt(sim.minResourceFee),
        contractId: token,
        fn: 'transfer',
        args,
        sourceAuth: true,
        sorobanData,
      },
      chain.networkPassphrase,
    );
  }
  const buildAndSignSeconds = (performance.now() - t) / 1000;
  const sample = Math.min(2_000, transactions);
  t = performance.now();
  for (let i = 0; i < sample; i++) {
    const tx = draft();
    const s = simulateTransaction(chain.hostView, tx.toXDR(), chain.nextLedgerInfo());
    const assembled = rpc
      .assembleTransaction(tx, { ...s, latestLedger: chain.latestLedger().sequence } as unknown as rpc.Api.RawSimulateTransactionResponse)
      .build();
    signTransaction(assembled, issuer);
    assembled.toXDR();
  }
  const walletSeconds = ((performance.now() - t) / 1000) * (transactions / sample);
  return {
    transactions,
    buildAndSignOnlySeconds: Number(buildAndSignSeconds.toFixed(1)),
    walletPathPerTransactionExtrapolatedSeconds: Number(walletSeconds.toFixed(1)),
    note: 'SAC transfer envelopes; the wallet path (simulate + assemble + sign, no apply) measured on a sample and scaled',
  };
}

runWhenMain(module, run);
