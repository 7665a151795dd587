import { startDevnet } from '@dob/devnet';
import { acquireDataDirLock, runApp } from '@dob/runtime';

/**
 * The devnet alone: a local Stellar network speaking Stellar RPC (see docs/devnet.md), its chain persisted under
 * `<DATA_DIR>/devnet` (the folder is locked: one devnet per folder). It prints, serves at GET /devnet/contracts and
 * writes to `<DATA_DIR>/devnet/contracts.json` what apps alone need to follow it: give them DEVNET_URL.
 */
runApp('devnet', async (config) => {
  const lock = acquireDataDirLock(config.DATA_DIR);
  const devnet = await startDevnet({
    port: config.DEVNET_PORT,
    host: config.DEVNET_HOST,
    dataDir: config.DATA_DIR,
    seed: config.DEVNET_SEED,
    ledgerIntervalMs: config.DEVNET_LEDGER_INTERVAL_MS,
    ...(config.DEVNET_RETENTION_LEDGERS ? { retentionLedgers: config.DEVNET_RETENTION_LEDGERS } : {}),
  }).catch((e: unknown) => {
    lock.release();
    throw e;
  });
  const base = devnet.rpcUrl.replace(/\/rpc$/, '');
  const m = devnet.manifest;
  console.log(
    [
      `devnet RPC:          ${m.rpcUrl}`,
      `devnet friendbot:    ${m.friendbotUrl}?addr=G...`,
      `network passphrase:  ${m.networkPassphrase}`,
      `test USDC (SAC):     ${m.paymentToken.address}`,
      `seeded pools:        ${m.pools.length}`,
      `stand-in wasms:      ${m.knownWasms.map((w) => `${w.hash}:${w.kind}:${w.version}`).join(',')}`,
      `for apps alone:      DEVNET_URL=${base}   (manifest: ${base}/devnet/contracts)`,
    ].join('\n'),
  );
  return async () => {
    await devnet.stop();
    lock.release();
  };
});
