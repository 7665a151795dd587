import { createChainEventCatalog } from '@dob/domain';
import { parseContracts, parseKnownWasms, startNetworkIndexing } from '@dob/indexer';
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
  const storage = await openStorage({
    dataDir: env.DATA_DIR ?? './data',
    databaseUrl: env.DATABASE_URL,
    catalog: createChainEventCatalog(),
  });
  console.log(JSON.stringify({ level: 'info', msg: 'indexer starting', networkId, rpcUrl, passphrase: env.STELLAR_NETWORK_PASSPHRASE, startLedger }));
  const indexing = startNetworkIndexing(storage.eventStore, {
    rpcUrl,
    networkId,
    startLedger,
    knownWasms: parseKnownWasms(env.DOB_WASM_HASHES),
    contracts: parseContracts(env.INDEXER_CONTRACTS),
  });
  const shutdown = async () => {
    await indexing.stop();
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
