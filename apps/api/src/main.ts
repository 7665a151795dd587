import { Logger } from '@nestjs/common';
import { HealthRegistry, openStorage, runApp } from '@dob/runtime';
import { createWebhookComponents, webhookSettings } from '@dob/webhooks';
import { ProjectionRunner, createSqlReadModelStore, projectionRegistry, projectionsHealth } from '@dob/projections';
import { startApi } from './bootstrap';
import { devnetOf, networksOf, tokensOf } from './chain-config';
import { composeApiDependencies } from './compose-api-dependencies';
import { systemEventCatalog } from './system-event-catalog';

/**
 * The API alone, beside an indexer, projector and notifier sharing the same PostgreSQL (DATABASE_URL) and Redis
 * (REDIS_URL). It runs no projection: /health is ready when the read models others maintain have caught up.
 * On a server database JWT_SECRET and WEBHOOK_SECRET_KEY are required (every replica and the notifier must share
 * them; their fingerprints stored with the data are checked at start).
 */
runApp('api', async (config) => {
  const log = new Logger('api');
  const devnet = await devnetOf(config, (why) => log.log(why));
  const networks = networksOf(config, devnet);
  const storage = await openStorage({ dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, catalog: systemEventCatalog() });
  const health = new HealthRegistry();
  // Reads the projector's checkpoints without running projections, to report whether read models caught up.
  const readModels = new ProjectionRunner(storage.eventStore, createSqlReadModelStore(storage.db), projectionRegistry);
  health.register('read_models', () => projectionsHealth(readModels, { runs: false }));
  const webhooks = await createWebhookComponents({ db: storage.db, ...webhookSettings(config, storage.dataDir) });
  const composed = await composeApiDependencies({
    storage,
    health,
    networks,
    tokens: tokensOf(config, devnet),
    webhooks: webhooks.service,
    redisUrl: config.REDIS_URL,
    jwtSecret: config.JWT_SECRET,
  });
  const app = await startApi(composed.deps, { port: config.PORT });
  log.log(`networks: ${networks.map((n) => `${n.id} → ${n.rpcUrl}`).join(', ')}`);
  return async () => {
    await app.close();
    await composed.close();
    webhooks.close();
    await storage.close();
  };
});
