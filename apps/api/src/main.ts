import { Logger } from '@nestjs/common';
import { apiHttpSettings, PinoNestLogger } from '@dob/api-http';
import { networksOf, startApiApp } from '@dob/compositions';
import { DependencyWatch, ServiceMetrics, createLogger, instrumentEventStore, startMetricsServer } from '@dob/observability';
import { ProjectionRunner, projectionsHealth, tolerateBriefLag } from '@dob/projections';
import { openReadModelStorage, projectionRegistry } from '@dob/read-models';
import { devnetOf, HealthRegistry, openAppStorage, runApp, storageDependencies, tokensOf, watchDependencies } from '@dob/runtime';
import { createWebhookComponents, webhookSettings } from '@dob/webhooks';

/**
 * The API alone, beside an indexer, projector and notifier sharing the same PostgreSQL (DATABASE_URL) and Redis
 * (REDIS_URL). It runs no projection: /health is ready when the read models others maintain have caught up.
 * On a server database JWT_SECRET and WEBHOOK_SECRET_KEY are required (every replica and the notifier must share
 * them; their fingerprints stored with the data are checked at start). Logs are JSON at LOG_LEVEL; /metrics on
 * METRICS_PORT, and on the API port behind METRICS_TOKEN.
 */
/** How long the read models may stay behind before /health says so: above the projector's 1 s polling fallback. */
const READ_MODEL_LAG_GRACE_MS = 5000;

runApp('api', async (config) => {
  const logger = createLogger({ app: 'api', level: config.LOG_LEVEL });
  Logger.overrideLogger(new PinoNestLogger(logger));
  const log = new Logger('api');
  const metrics = new ServiceMetrics({ app: 'api' });
  const devnet = await devnetOf(config, (why) => log.log(why));
  const networks = networksOf(config, devnet);
  const opened = await openAppStorage(config);
  const storage = { ...opened, eventStore: instrumentEventStore(opened.eventStore, metrics) };
  const readModels = await openReadModelStorage({ db: storage.db, mongodbUrl: config.MONGODB_URL });
  log.log(`read models: ${readModels.description}`);
  const health = new HealthRegistry();
  // Reads the projector's checkpoints without running projections, to report whether read models caught up.
  const projections = new ProjectionRunner(storage.eventStore, readModels.store, projectionRegistry);
  // A lag of a few events while the projector applies them is normal under writes: not a reason to leave rotation.
  health.register(
    'read_models',
    tolerateBriefLag(() => projectionsHealth(projections, { runs: false }), READ_MODEL_LAG_GRACE_MS),
  );
  const dependencies = new DependencyWatch(logger, metrics);
  watchDependencies(health, dependencies, storageDependencies(storage, readModels));
  metrics.trackProjections(() => projections.status());
  const webhooks = await createWebhookComponents({ db: storage.db, ...webhookSettings(config, storage.dataDir) });
  metrics.trackWebhooks(webhooks);
  const api = await startApiApp(
    { storage, health, metrics, log: logger },
    {
      readModels,
      networks,
      tokens: tokensOf(config, devnet),
      webhooks: webhooks.service,
      redisUrl: config.REDIS_URL,
      dependencies,
      ipRateLimitRpm: config.API_IP_RATE_LIMIT_RPM,
      jwtSecret: config.JWT_SECRET,
      port: config.PORT,
      ...apiHttpSettings(config),
    },
  );
  const metricsServer = config.METRICS_PORT === undefined ? undefined : await startMetricsServer(metrics, config.METRICS_PORT);
  log.log(`networks: ${networks.map((n) => `${n.id} → ${n.rpcUrl}`).join(', ')}`);
  return async () => {
    await api.stop();
    await metricsServer?.close();
    dependencies.close();
    webhooks.close();
    await readModels.close();
    await storage.close();
  };
});
