import type { LeaseKeeper } from '@dob/leases';
import { lineLogger } from '@dob/observability';
import { DEFAULT_CATCH_UP_BATCH_SIZE, ProjectionRunner, projectionsHealth } from '@dob/projections';
import { READ_MODEL_REBUILD_GROUPS, projectionRegistry, type ReadModelStorage } from '@dob/read-models';
import type { AppContext, Started } from './app-context';

export interface ProjectorOptions {
  /** Where the read models are (openReadModelStorage: the SQL database, or MongoDB). */
  readonly readModels: ReadModelStorage;
  /** Several projectors on one PostgreSQL: each projection runs in the one holding its lease (the caller starts it). */
  readonly leases?: LeaseKeeper;
}

/**
 * The projector: every registered projection kept current from the event store, reported on /health
 * (`projections`, ready once all caught up) and in the metrics. Composed by `npm run start:projector` and `npm start`.
 */
export async function startProjector(c: AppContext, o: ProjectorOptions): Promise<Started & { readonly runner: ProjectionRunner }> {
  const runner = new ProjectionRunner(c.storage.eventStore, o.readModels.store, projectionRegistry, {
    log: lineLogger(c.log, 'projector'),
    catchUpBatchSize: DEFAULT_CATCH_UP_BATCH_SIZE,
    // A projector that comes back to a long backlog reads it once for the four that share most of their events.
    catchUpGroups: READ_MODEL_REBUILD_GROUPS,
    ...(o.leases ? { leases: o.leases } : {}),
  });
  c.health.register('projections', () => projectionsHealth(runner, { runs: true }));
  await runner.start();
  c.metrics.trackProjections(() => runner.status());
  return { runner, stop: () => runner.stop() };
}
