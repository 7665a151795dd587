import { apiHttpSettings } from '@dob/api-http';
import { kafkaRelaySettings } from '@dob/kafka-relay';
import { runApp } from '@dob/runtime';
import { startSystem } from './system';

/**
 * `npm start`: the whole system in one process on embedded defaults (PGlite + the seeded local devnet in ./.data).
 * Ctrl-C stops it cleanly; the next start resumes from the stored checkpoints and chain state.
 */
runApp('all', async (config) => {
  const system = await startSystem({
    dataDir: config.DATA_DIR,
    port: config.PORT,
    devnetPort: config.DEVNET_PORT,
    databaseUrl: config.DATABASE_URL,
    eventStoreUrl: config.EVENTSTORE_URL,
    mongodbUrl: config.MONGODB_URL,
    rpcUrl: config.STELLAR_RPC_URL,
    rpcTimeoutMs: config.STELLAR_RPC_TIMEOUT_MS,
    networkPassphrase: config.STELLAR_NETWORK_PASSPHRASE,
    seed: config.DEVNET_SEED,
    ledgerIntervalMs: config.DEVNET_LEDGER_INTERVAL_MS,
    retentionLedgers: config.DEVNET_RETENTION_LEDGERS,
    startLedger: config.INDEXER_START_LEDGER,
    indexerPollMs: config.INDEXER_POLL_MS,
    indexerRpcSlowMs: config.INDEXER_RPC_SLOW_MS,
    schedulerMs: config.INDEXER_SCHEDULER_MS,
    redisUrl: config.REDIS_URL,
    ipRateLimitRpm: config.API_IP_RATE_LIMIT_RPM,
    jwtSecret: config.JWT_SECRET,
    logLevel: config.LOG_LEVEL,
    ...apiHttpSettings(config),
    metricsPort: config.METRICS_PORT,
    webhook: config,
    kafka: kafkaRelaySettings(config),
  });
  system.log.info(
    {
      api: system.apiUrl,
      health: system.healthUrl,
      openapi: `${system.apiUrl}/openapi.json`,
      rpc: system.rpcUrl,
      friendbot: system.friendbotUrl ?? null,
      data: system.storage.dataDir,
    },
    'system started',
  );
  // The human summary only on a terminal: piped output stays one JSON object per line.
  if (process.stdout.isTTY)
    console.log(
      [
        '',
        `  Agent API     ${system.apiUrl}`,
        `  Health        ${system.healthUrl}`,
        `  OpenAPI       ${system.apiUrl}/openapi.json`,
        `  Local chain   ${system.rpcUrl}  (passphrase "${system.networkPassphrase}")`,
        system.friendbotUrl ? `  Faucet        ${system.friendbotUrl}?addr=G…` : '',
        system.kafkaRelay ? `  Kafka topics  ${system.kafkaRelay.topicNames.join(', ')}` : '',
        `  Data          ${system.storage.dataDir}`,
        `  Read models   ${system.readModels.description}`,
        '',
      ]
        .filter((l) => l !== '')
        .join('\n'),
    );
  return () => system.stop();
});
