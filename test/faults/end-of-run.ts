import { isDeepStrictEqual } from 'node:util';
import { comparePositions, positionFromString, type EventStore, type RecordedEvent } from '@dob/event-store';
import { ProjectionRunner, createSqlReadModelStore, type ProjectionDefinition, type SqlProjectionDefinition } from '@dob/projections';
import { projectionRegistry } from '@dob/read-models';
export { readEverything } from '../../libs/event-store/src/testing/read-everything';
import type { SqlDatabase } from '@dob/sql';
import { createFanoutProjection } from '@dob/webhooks';

/**
 * What must hold at the end of the fault suite, whatever the faults did in between (issue 31): the event store has
 * no gap and no duplicate, no checkpoint is past what was committed, and the read models are what a clean build from
 * the same events makes. Each check returns what is wrong (empty when all holds), so the suite prints every problem.
 */

/**
 * No gap and no duplicate: `$all` read in pages yields every stored row once (a reader skipping or repeating events
 * across the outages would show here), in strictly increasing positions, no event id twice; every stream's revisions
 * are 0…n-1 and its recorded revision is its last. Global positions themselves may skip numbers (a sequence value of
 * a transaction rolled back by a restart is not reused): that is not a gap a reader can see.
 */
export async function eventStoreProblems(db: SqlDatabase, events: readonly RecordedEvent[]): Promise<string[]> {
  const problems: string[] = [];
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM es_events');
  if (Number(rows[0]!.n) !== events.length) problems.push(`$all read ${events.length} events, es_events holds ${rows[0]!.n}`);
  for (let i = 1; i < events.length; i++) {
    if (comparePositions(events[i - 1]!.position, events[i]!.position) >= 0) problems.push(`$all out of order at ${events[i]!.id}`);
  }
  const ids = new Set(events.map((e) => e.id));
  if (ids.size !== events.length) problems.push(`${events.length - ids.size} event ids read twice`);
  const streams = await db.query<{ stream_id: string; n: string; lo: string; hi: string; recorded: string | null }>(
    `SELECT e.stream_id, count(*) AS n, min(e.revision) AS lo, max(e.revision) AS hi, s.revision AS recorded
       FROM es_events e LEFT JOIN es_streams s ON s.stream_id = e.stream_id
      GROUP BY e.stream_id, s.revision
     HAVING min(e.revision) <> 0 OR max(e.revision) + 1 <> count(*) OR s.revision IS DISTINCT FROM max(e.revision)`,
  );
  for (const s of streams.rows) problems.push(`stream ${s.stream_id}: ${s.n} events, revisions ${s.lo}…${s.hi}, recorded ${s.recorded}`);
  return problems;
}

/** No projection checkpoint (the read models' and the webhook fan-out's) past the head of `$all`. */
export async function checkpointProblems(db: SqlDatabase, store: EventStore): Promise<string[]> {
  const head = await store.headPosition();
  const { rows } = await db.query<{ name: string; generation: number; position: string }>('SELECT name, generation, position FROM projection_checkpoints');
  return rows
    .filter((r) => comparePositions(positionFromString(r.position), head) > 0)
    .map((r) => `${r.name} (generation ${r.generation}) checkpoint ${r.position} is past the head ${head.commit}:${head.prepare}`);
}

/** The served projections and the fan-out at the head of `$all` (lag 0): what the suite waits for before comparing. */
export async function projectionsAtHead(db: SqlDatabase, store: EventStore): Promise<boolean> {
  const served = new ProjectionRunner(store, createSqlReadModelStore(db), projectionRegistry);
  const fanout = new ProjectionRunner<SqlProjectionDefinition>(store, createSqlReadModelStore(db), [createFanoutProjection()]);
  const reports = [...(await served.status()), ...(await fanout.status())];
  return reports.every((p) => p.active !== null && p.active.lag === 0);
}

/**
 * Every read model equal to a clean build of every projection from the same event store into `cleanDb` (another
 * schema): a checkpoint that moved past what its batch wrote, or a batch applied twice, differs here.
 */
export async function readModelProblems(db: SqlDatabase, store: EventStore, cleanDb: SqlDatabase): Promise<string[]> {
  const cleanStore = createSqlReadModelStore(cleanDb);
  const clean = new ProjectionRunner(store, cleanStore, projectionRegistry);
  await clean.start();
  let reports;
  try {
    await clean.waitUntilCaughtUp(120_000);
    reports = await clean.status();
  } finally {
    await clean.stop();
  }
  const problems = reports.filter((p) => p.active?.status !== 'live').map((p) => `clean build of ${p.name}: ${JSON.stringify(p.active)}`);
  if (problems.length > 0) return problems;
  const served = createSqlReadModelStore(db);
  for (const def of projectionRegistry as readonly ProjectionDefinition[]) {
    for (const collection of Object.keys(def.collections)) {
      const label = `${def.name}.${collection}`;
      const got = await served.documents(def, collection).catch((e: Error) => `served: ${e.message}`);
      const want = await cleanStore.documents(def, collection).catch((e: Error) => `clean build: ${e.message}`);
      if (typeof got === 'string' || typeof want === 'string') {
        problems.push(`${label}: ${typeof got === 'string' ? got : ''} ${typeof want === 'string' ? want : ''}`);
        continue;
      }
      if (!isDeepStrictEqual(got, want)) problems.push(`${label}: ${got.length} documents served, ${want.length} in a clean build`);
    }
  }
  return problems;
}
