import { systemEventCatalog } from '../../api/src/system-event-catalog';
import { ProjectionRunner } from '@dob/projections';
import { openReadModelStorage, projectionRegistry } from '@dob/read-models';
import { instrumentEventStore, lineLogger, startAppObservability } from '@dob/observability';
import { ConfigError, loadAppConfig, openStorage } from '@dob/runtime';

/**
 * The projector alone: follows the event store and keeps every registered projection's read models current.
 * Run it against PostgreSQL (DATABASE_URL) next to the api and indexer, with the read models in MongoDB when
 * MONGODB_URL is set; `npm start` embeds it instead.
 */
async function main(): Promise<void> {
  const config = loadAppConfig();
  const obs = await startAppObservability({ app: 'projector', level: config.LOG_LEVEL, metricsPort: config.METRICS_PORT });
  const storage = await openStorage({
    dataDir: config.DATA_DIR,
    databaseUrl: config.DATABASE_URL,
    eventStoreUrl: config.EVENTSTORE_URL,
    catalog: systemEventCatalog(),
  });
  const readModels = await openReadModelStorage({ db: storage.db, mongodbUrl: config.MONGODB_URL });
  obs.log.info(`read models: ${readModels.description}`);
  const runner = new ProjectionRunner(instrumentEventStore(storage.eventStore, obs.metrics), readModels.store, projectionRegistry, {
    log: lineLogger(obs.log, 'projector'),
  });
  await runner.start();
  obs.metrics.trackProjections(() => runner.status());
  obs.log.info({ projections: runner.names }, 'projections running');
  const shutdown = async () => {
    await runner.stop();
    await readModels.close();
    await obs.close();
    await storage.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
