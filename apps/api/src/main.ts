import { Logger } from '@nestjs/common';
import { ConfigError, DataDirLockedError, HealthRegistry, loadAppConfig, openStorage } from '@dob/runtime';
import { ServiceMetrics, createLogger, instrumentEventStore } from '@dob/observability';
import { PinoNestLogger } from './logging/pino-nest-logger';
import { createWebhookComponents, loadWebhookSettings } from '@dob/webhooks';
import type { StellarNetwork } from '@dob/trading';
import { ProjectionRunner } from '@dob/projections';
import { openReadModelStorage, projectionRegistry } from '@dob/read-models';
import { startApi } from './bootstrap';
import { composeApiDependencies } from './compose-api-dependencies';
import { systemEventCatalog } from './system-event-catalog';

/** Stellar's published passphrases for the spec's network ids 9 (testnet) and 10 (mainnet). */
const TESTNET_PASSPHRASE = 'Test SDF Network ; September 2015';
const MAINNET_PASSPHRASE = 'Public Global Stellar Network ; September 2015';

/**
 * The API alone, beside an indexer, projector and notifier sharing the same PostgreSQL (DATABASE_URL) and Redis
 * (REDIS_URL). It runs no projection: /health is ready when the read models others maintain have caught up.
 */
async function main(): Promise<void> {
  const config = loadAppConfig();
  const logger = createLogger({ app: 'api', level: config.LOG_LEVEL });
  Logger.overrideLogger(new PinoNestLogger(logger));
  const log = new Logger('api');
  const metrics = new ServiceMetrics({ app: 'api' });
  if (!config.STELLAR_RPC_URL && !config.STELLAR_MAINNET_RPC_URL) {
    throw new ConfigError('invalid configuration:\n  STELLAR_RPC_URL: required when the API runs alone (npm start embeds a devnet)');
  }
  const networks: StellarNetwork[] = [];
  const tokensOf = (id: number) => config.STELLAR_TOKENS.filter((t) => t.networkId === id);
  if (config.STELLAR_RPC_URL) {
    networks.push({
      id: 9,
      rpcUrl: config.STELLAR_RPC_URL,
      passphrase: config.STELLAR_NETWORK_PASSPHRASE ?? TESTNET_PASSPHRASE,
      explorerUrl: 'https://stellar.expert/explorer/testnet',
      tokens: tokensOf(9),
    });
  }
  if (config.STELLAR_MAINNET_RPC_URL) {
    networks.push({ id: 10, rpcUrl: config.STELLAR_MAINNET_RPC_URL, passphrase: MAINNET_PASSPHRASE, explorerUrl: 'https://stellar.expert/explorer/public', tokens: tokensOf(10) });
  }

  const opened = await openStorage({ dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, eventStoreUrl: config.EVENTSTORE_URL, catalog: systemEventCatalog() });
  const storage = { ...opened, eventStore: instrumentEventStore(opened.eventStore, metrics) };
  const readModels = await openReadModelStorage({ db: storage.db, mongodbUrl: config.MONGODB_URL });
  log.log(`read models: ${readModels.description}`);
  const health = new HealthRegistry();
  // Reads the projector's checkpoints without running projections, to report whether read models caught up.
  const projections = new ProjectionRunner(storage.eventStore, readModels.store, projectionRegistry);
  health.register('read_models', async () => {
    const report = await projections.status();
    return {
      status: report.some((p) => p.active?.status === 'faulted') ? 'down' : 'up',
      ready: report.every((p) => p.active !== null && p.active.lag === 0),
      details: Object.fromEntries(report.map((p) => [p.name, p.active])),
    };
  });
  metrics.trackProjections(() => projections.status());
  const webhooks = await createWebhookComponents({ db: storage.db, ...loadWebhookSettings(process.env, storage.dataDir) });
  metrics.sample(async () => metrics.webhookQueueDepth.set((await webhooks.queue.counts()).pending));
  const composed = await composeApiDependencies({
    storage,
    readModels,
    health,
    networks,
    tokens: config.STELLAR_TOKENS,
    webhooks: webhooks.service,
    redisUrl: config.REDIS_URL,
    ipRateLimitRpm: config.API_IP_RATE_LIMIT_RPM,
    jwtSecret: config.JWT_SECRET,
  });
  const app = await startApi(composed.deps, { port: config.PORT, log: logger, metrics });
  log.log(`networks: ${networks.map((n) => `${n.id} → ${n.rpcUrl}`).join(', ')}`);

  const shutdown = async () => {
    await app.close();
    await composed.close();
    await webhooks.close();
    await readModels.close();
    await storage.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((e) => {
  console.error(e instanceof ConfigError || e instanceof DataDirLockedError ? e.message : e);
  process.exit(1);
});
