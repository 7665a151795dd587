import { startNotifier } from '@dob/compositions';
import { instrumentEventStore, lineLogger, startAppObservability } from '@dob/observability';
import {
  devnetOf,
  HealthRegistry,
  appLeases,
  openAppStorage,
  runApp,
  startHealthServer,
  storageDependencies,
  tokensOf,
  trackStartup,
  watchDependencies,
} from '@dob/runtime';

/**
 * The notifier alone: fans domain events out to subscribed webhooks (durable queue) and delivers them, signed, with
 * retries. Run it against PostgreSQL (DATABASE_URL) beside the api, indexer and projector; `npm start` embeds it.
 * Several instances may run: the fan-out runs in the one holding its lease (fenced commits), SKIP LOCKED shares the queue.
 * WEBHOOK_SECRET_KEY must be the API's (checked against the fingerprint stored with the data at start).
 * HEALTH_PORT serves GET /health: fan-out lag, queue counts, failed attempts by reason; METRICS_PORT /metrics.
 */
runApp('notifier', async (config) => {
  const obs = await startAppObservability({ app: 'notifier', level: config.LOG_LEVEL, metricsPort: config.METRICS_PORT });
  const health = new HealthRegistry();
  const startup = trackStartup(health);
  const healthServer = config.HEALTH_PORT === undefined ? undefined : await startHealthServer(health, config.HEALTH_PORT);
  const tokens = tokensOf(config, await devnetOf(config, startup.waitFor));
  startup.waitFor('the database');
  const opened = await openAppStorage(config);
  const storage = { ...opened, eventStore: instrumentEventStore(opened.eventStore, obs.metrics) };
  const leases = appLeases('notifier', storage.db, config, lineLogger(obs.log, 'leases'), obs.metrics.countLeaseChange);
  const notifier = await startNotifier({ storage, health, metrics: obs.metrics, log: obs.log }, { tokens, webhook: config, leases });
  await leases?.start();
  watchDependencies(health, obs.dependencies, storageDependencies(storage));
  startup.done();
  obs.log.info(`fan-out and delivery worker running${healthServer ? `; health ${healthServer.url}` : ''}`);
  return async () => {
    await healthServer?.close();
    await leases?.stop();
    await notifier.stop();
    await obs.close();
    await storage.close();
  };
});
