/**
 * The devnet alone: a local Stellar network speaking Stellar RPC (see docs/devnet.md).
 *   DEVNET_PORT (default 8000), DATA_DIR (persist under <DATA_DIR>/devnet), DEVNET_SEED (numeric seed, or "off"),
 *   DEVNET_LEDGER_MS (ledger interval, default 1000), DEVNET_RETENTION_LEDGERS (default 120960).
 */
import { DEFAULT_SEED, startDevnet } from '@dob/devnet';

function seedFromEnv(value: string | undefined): boolean | number {
  if (value === undefined || value === '') return DEFAULT_SEED;
  if (value === 'off' || value === 'false') return false;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`DEVNET_SEED must be an integer or "off", got ${value}`);
  return n;
}

async function main(): Promise<void> {
  const devnet = await startDevnet({
    port: Number(process.env.DEVNET_PORT ?? 8000),
    host: process.env.DEVNET_HOST ?? '127.0.0.1',
    ...(process.env.DATA_DIR ? { dataDir: process.env.DATA_DIR } : {}),
    seed: seedFromEnv(process.env.DEVNET_SEED),
    ledgerIntervalMs: Number(process.env.DEVNET_LEDGER_MS ?? 1000),
    ...(process.env.DEVNET_RETENTION_LEDGERS ? { retentionLedgers: Number(process.env.DEVNET_RETENTION_LEDGERS) } : {}),
  });
  console.log(`devnet RPC:        ${devnet.rpcUrl}`);
  console.log(`devnet friendbot:  ${devnet.friendbotUrl}?addr=G...`);
  console.log(`network passphrase: ${devnet.networkPassphrase}`);
  console.log(`test USDC (SAC):   ${devnet.paymentToken}; seeded pools: ${devnet.pools.length}`);
  const shutdown = () => {
    devnet.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
