/**
 * Devnet seeder throughput: time to build N contract events of history through signed transactions applied by
 * the chain (validation, host execution, ledger close), in memory.
 *   node -r @swc-node/register bench/devnet-seeder.bench.ts [targetEvents] [budgetSeconds]
 *   → bench/results/devnet-seeder.json
 * The 1,000,000-event target stops at the time budget on slow machines; the result then records the largest N
 * reached and the rate, with `reachedTarget: false`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSorobanHost, DevnetChain, STANDALONE_PASSPHRASE, USDC_CODE, usdcIssuer, FAUCET_XLM_STROOPS } from '@dob/devnet';
import { seedDevnet } from '../libs/devnet/src/seeder/seed-devnet';

class BudgetReached extends Error {}

export async function run(targetEvents = Number(process.argv[2] ?? 1_000_000), budgetSeconds = Number(process.argv[3] ?? 900)) {
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
  const result = {
    benchmark: 'devnet-seeder',
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` },
    parameters: { targetEvents, budgetSeconds },
    reachedTarget,
    events,
    transactions: chain.appliedTransactionCount,
    ledgers: chain.latestLedger().sequence,
    seconds: Number(seconds.toFixed(1)),
    eventsPerSecond: Math.round(events / seconds),
    transactionsPerSecond: Math.round(chain.appliedTransactionCount / seconds),
    heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    samples,
  };
  const out = path.join(__dirname, 'results', 'devnet-seeder.json');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

if (require.main === module) {
  run().then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
