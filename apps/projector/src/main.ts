import { startProjector } from '@dob/compositions';
import { instrumentEventStore, lineLogger, startAppObservability } from '@dob/observability';
import { openReadModelStorage } from '@dob/read-models';
import { HealthRegistry, appLeases, openAppStorage, runApp, startHealthServer, storageDependencies, watchDependencies } from '@dob/runtime';

/**
 * The projector alone: follows the event store and keeps every registered projection's read models current.
 * Run it against PostgreSQL (DATABASE_URL) next to the api and indexer, with the read models in MongoDB when
 * MONGODB_URL is set; `npm start` embeds it instead. HEALTH_PORT serves GET /health (ready once every projection
 * has caught up), METRICS_PORT /metrics.
 */
runApp('projector', async (config) => {
  const obs = await startAppObservability({ app: 'projector', level: config.LOG_LEVEL, metricsPort: config.METRICS_PORT });
  const opened = await openAppStorage(config);
  const storage = { ...opened, eventStore: instrumentEventStore(opened.eventStore, obs.metrics) };
  const readModels = await openReadModelStorage({ db: storage.db, mongodbUrl: config.MONGODB_URL });
  obs.log.info(`read models: ${readModels.description}`);
  // Several projectors on one PostgreSQL: each projection runs in the one holding its lease (docs/projections.md).
  const leases = appLeases('projector', storage.db, config, lineLogger(obs.log, 'leases'), obs.metrics.countLeaseChange);
  const health = new HealthRegistry();
  watchDependencies(health, obs.dependencies, storageDependencies(storage, readModels));
  const healthServer = config.HEALTH_PORT === undefined ? undefined : await startHealthServer(health, config.HEALTH_PORT);
  const projector = await startProjector({ storage, health, metrics: obs.metrics, log: obs.log }, { readModels, leases });
  await leases?.start();
  obs.log.info(`running ${projector.runner.names.join(', ')}${healthServer ? `; health ${healthServer.url}` : ''}`);
  return async () => {
    await healthServer?.close();
    await leases?.stop();
    await projector.stop();
    await readModels.close();
    await obs.close();
    await storage.close();
  };
});
