import { Logger } from '@nestjs/common';
import { systemEventCatalog } from '../../api/src/system-event-catalog';
import { ProjectionRunner, createSqlReadModelStore, projectionRegistry, projectionsHealth } from '@dob/projections';
import { HealthRegistry, openStorage, runApp, startHealthServer } from '@dob/runtime';

/**
 * The projector alone: follows the event store and keeps every registered projection's read models current.
 * Run it against PostgreSQL (DATABASE_URL) next to the api and indexer; `npm start` embeds it instead.
 * HEALTH_PORT serves GET /health (ready once every projection has caught up).
 */
runApp('projector', async (config) => {
  const log = new Logger('projector');
  const storage = await openStorage({ dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, catalog: systemEventCatalog() });
  const runner = new ProjectionRunner(storage.eventStore, createSqlReadModelStore(storage.db), projectionRegistry, {
    log: (line) => log.log(line),
  });
  const health = new HealthRegistry();
  health.register('projections', () => projectionsHealth(runner, { runs: true }));
  const healthServer = config.HEALTH_PORT === undefined ? undefined : await startHealthServer(health, config.HEALTH_PORT);
  await runner.start();
  log.log(`running ${runner.names.join(', ')}${healthServer ? `; health ${healthServer.url}` : ''}`);
  return async () => {
    await healthServer?.close();
    await runner.stop();
    await storage.close();
  };
});
