import { startIndexer } from '@dob/compositions';
import { createChainEventCatalog } from '@dob/domain';
import { registerSeededPools } from '@dob/indexer';
import { instrumentEventStore, lineLogger, startAppObservability } from '@dob/observability';
import {
  devnetOf,
  HealthRegistry,
  appLeases,
  openAppStorage,
  runApp,
  startHealthServer,
  storageDependencies,
  trackStartup,
  watchDependencies,
} from '@dob/runtime';

/**
 * The indexer alone: ingests one Stellar network (INDEXER_NETWORK_ID, default 9) from STELLAR_RPC_URL into the
 * event store (DATABASE_URL or EVENTSTORE_URL, or embedded PGlite in DATA_DIR), from INDEXER_START_LEDGER. With
 * DEVNET_URL it follows a devnet started by `npm run start:devnet` exactly as `npm start` does: the devnet's RPC, its
 * stand-in wasm hashes and its seeded pools' metadata come from the devnet's /devnet/contracts. DOB_WASM_HASHES and
 * INDEXER_CONTRACTS add hashes and contracts. HEALTH_PORT serves GET /health (ready once live), METRICS_PORT
 * /metrics; logs are JSON at LOG_LEVEL.
 */
runApp('indexer', async (config) => {
  const obs = await startAppObservability({ app: 'indexer', level: config.LOG_LEVEL, metricsPort: config.METRICS_PORT });
  const health = new HealthRegistry();
  const startup = trackStartup(health);
  const healthServer = config.HEALTH_PORT === undefined ? undefined : await startHealthServer(health, config.HEALTH_PORT);
  const devnet = await devnetOf(config, startup.waitFor);
  const networkId = config.INDEXER_NETWORK_ID;
  const rpcUrl = config.STELLAR_RPC_URL ?? devnet!.rpcUrl;
  startup.waitFor('the database');
  const opened = await openAppStorage(config, createChainEventCatalog());
  const storage = { ...opened, eventStore: instrumentEventStore(opened.eventStore, obs.metrics) };
  // The seeder's off-chain pool metadata, registered as npm start registers it (idempotent on restart).
  if (devnet) await registerSeededPools(storage.eventStore, networkId, devnet.pools);
  obs.log.info(
    {
      networkId,
      rpcUrl,
      passphrase: config.STELLAR_NETWORK_PASSPHRASE ?? devnet?.networkPassphrase ?? null,
      startLedger: config.INDEXER_START_LEDGER,
      health: healthServer?.url ?? null,
    },
    'indexer starting',
  );
  const leases = appLeases('indexer', storage.db, config, lineLogger(obs.log, 'leases'), obs.metrics.countLeaseChange);
  const indexing = startIndexer(
    { storage, health, metrics: obs.metrics, log: obs.log },
    {
      rpcUrl,
      networkId,
      startLedger: config.INDEXER_START_LEDGER,
      knownWasms: [...config.DOB_WASM_HASHES, ...(devnet?.knownWasms ?? [])],
      contracts: config.INDEXER_CONTRACTS,
      pollIntervalMs: config.INDEXER_POLL_MS,
      rpcSlowMs: config.INDEXER_RPC_SLOW_MS,
      schedulerIntervalMs: config.INDEXER_SCHEDULER_MS,
      leases,
    },
  );
  await leases?.start();
  watchDependencies(health, obs.dependencies, storageDependencies(storage));
  startup.done();
  return async () => {
    await healthServer?.close();
    await leases?.stop();
    await indexing.stop();
    await obs.close();
    await storage.close();
  };
});
