import { AppError, createChainEventCatalog, type EventDefinition } from '@dob/domain';
import { START, comparePositions, createSqlEventStore, positionFromString, type EventStore, type GlobalPosition, type StreamAppend } from '@dob/event-store';
import { ProjectionRunner, createSqlReadModelStore, type ReadModelStore } from '@dob/projections';
import type { SqlDatabase } from '@dob/sql';
import { migrateFeaturedOverrides } from '../featured/featured-overrides';
import { readModelProjections } from '../projections';

export interface ReadModelHarness {
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  append(appends: readonly StreamAppend[]): Promise<void>;
  /** Rebuilds every read model blue/green from the event store. */
  rebuildAll(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Waits until every projection's serving slot has applied `position` (no build in progress); a faulted one fails.
 * "Caught up with the head" is not enough on a shared PostgreSQL server: wait for the caller's own appends.
 * A status read that finds the server momentarily unavailable is polled again, as the runner itself retries: under a
 * loaded CI machine a new connection once took over the 1 s connect timeout (a CI run on 2026-11-29).
 */
export async function appliedUpTo(runner: ProjectionRunner, position: GlobalPosition, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const reports = await runner.status().catch((e: unknown) => {
      if (e instanceof AppError && e.code === 'SERVICE_UNAVAILABLE') return null;
      throw e;
    });
    if (!reports) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const faulted = reports.find((r) => r.active?.status === 'faulted');
    if (faulted) throw new Error(`projection ${faulted.name} faulted: ${faulted.active!.fault?.error}`);
    const applied = (r: (typeof reports)[number]) => !!r.active && !r.building && comparePositions(positionFromString(r.active.position), position) >= 0;
    if (reports.every(applied)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('read models did not catch up');
}

/**
 * Event store (validating against the chain catalog) + the real projection runner over the read models, kept in
 * `db` unless another read-model store is given (e.g. the MongoDB one; the event store stays in `db`).
 */
export async function startReadModels(
  db: SqlDatabase,
  extraEvents: readonly EventDefinition[] = [],
  readModels: ReadModelStore = createSqlReadModelStore(db),
): Promise<ReadModelHarness> {
  const store = await createSqlEventStore(db, { pollIntervalMs: 20, catalog: createChainEventCatalog(extraEvents) });
  await migrateFeaturedOverrides(db);
  const runner = new ProjectionRunner(store, readModels, readModelProjections, { superviseIntervalMs: 50 });
  await runner.start();
  // The last position this harness appended. "Caught up with the head" is not enough on a shared PostgreSQL server:
  // the gap-safe head (pg_snapshot_xmin) is held back by any open transaction in the cluster — another test's —
  // so a projection can be "at the head" while our own appends are not yet readable. Wait for them explicitly.
  let appendedUpTo: GlobalPosition = START;
  // Generous deadline: the machine is shared, and a slow poll is not a failure of the read models.
  const settle = () => appliedUpTo(runner, appendedUpTo, 90_000);
  await runner.waitUntilCaughtUp();
  return {
    store,
    runner,
    async append(appends) {
      // One append per run of one stream, in order, so $all order is the scenario order.
      for (const a of appends) await store.appendToStream(a.streamId, a.events);
      const last = appends.at(-1);
      if (last) {
        const written = await store.readStream(last.streamId);
        const position = written.at(-1)?.position;
        if (position && comparePositions(position, appendedUpTo) > 0) appendedUpTo = position;
      }
      await settle();
    },
    async rebuildAll() {
      for (const name of runner.names) await runner.rebuild(name);
      await settle();
    },
    async close() {
      await runner.stop();
      await store.close();
    },
  };
}
