import { createChainEventCatalog } from '@dob/domain';
import { parseContracts, parseKnownWasms, startNetworkIndexing } from '@dob/indexer';
import { fieldLogger, instrumentEventStore, startAppObservability } from '@dob/observability';
import { openStorage } from '@dob/runtime';

/**
 * Indexer composition root. Env: STELLAR_RPC_URL, STELLAR_NETWORK_PASSPHRASE (logged for operators), NETWORK_ID
 * (9 testnet/devnet, 10 mainnet), START_LEDGER, DATABASE_URL (PostgreSQL) or DATA_DIR (embedded PGlite),
 * optional DOB_WASM_HASHES (hash:kind:version,…) and INDEXER_CONTRACTS (C…:kind:version,…).
 */
async function main(): Promise<void> {
  const env = process.env;
  const rpcUrl = env.STELLAR_RPC_URL;
  const startLedger = Number(env.START_LEDGER);
  if (!rpcUrl || !Number.isInteger(startLedger) || startLedger < 1) {
    throw new Error('STELLAR_RPC_URL and START_LEDGER (a ledger sequence ≥ 1) are required');
  }
  const networkId = Number(env.NETWORK_ID ?? 9);
  const obs = await startAppObservability({ app: 'indexer', level: env.LOG_LEVEL, metricsPort: env.METRICS_PORT ? Number(env.METRICS_PORT) : undefined });
  const storage = await openStorage({
    dataDir: env.DATA_DIR ?? './data',
    databaseUrl: env.DATABASE_URL,
    catalog: createChainEventCatalog(),
  });
  obs.log.info({ networkId, rpcUrl, passphrase: env.STELLAR_NETWORK_PASSPHRASE, startLedger }, 'indexer starting');
  const indexing = startNetworkIndexing(instrumentEventStore(storage.eventStore, obs.metrics), {
    logger: fieldLogger(obs.log, 'indexer'),
    rpcUrl,
    networkId,
    startLedger,
    knownWasms: parseKnownWasms(env.DOB_WASM_HASHES),
    contracts: parseContracts(env.INDEXER_CONTRACTS),
  });
  obs.metrics.trackIndexer(networkId, () => indexing.status());
  const shutdown = async () => {
    await indexing.stop();
    await obs.close();
    await storage.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
