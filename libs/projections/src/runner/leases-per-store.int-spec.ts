import { createSqlEventStore } from '@dob/event-store';
import { LeaseKeeper, createSqlLeaseStore, leaseOwner } from '@dob/leases';
import { type MongoDatabase } from '@dob/mongo';
import { createTestMongoDatabase } from '../../../mongo/src/testing/test-mongo';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { createMongoReadModelStore } from '../mongo/mongo-read-model-store';
import type { ReadModelStore } from '../read-model-store.port';
import { createSqlReadModelStore } from '../sql/sql-read-model-store';
import { credit, ledgerProjection } from '../testing/ledger.projection';
import { ProjectionRunner } from './projection-runner';
import { projectionsHealth } from './projections-health';

/**
 * Read models on MongoDB beside read models on SQL, over one event store and one lease table (issue 31): each store's
 * projections are owned on their own (leases named per store); a third runner on SQL stands by and says so.
 */
describe('projection leases named per read-model store', () => {
  let db: SqlDatabase;
  let mongo: MongoDatabase;
  const stops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    db = await createPgliteDatabase();
    mongo = await createTestMongoDatabase();
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await mongo.close();
    await db.close();
  });

  it('a MongoDB projector and a SQL projector both own their projections; a second SQL projector reports standby', async () => {
    const events = await createSqlEventStore(db, { pollIntervalMs: 20 });
    stops.push(() => events.close());
    await events.appendToStream('ledger-a', [credit(1), credit(2)]);
    const leases = createSqlLeaseStore(db);
    const timing = { durationMs: 2000, heartbeatMs: 200 };
    const start = async (app: string, store: ReadModelStore) => {
      const keeper = new LeaseKeeper(leases, leaseOwner(app), timing);
      const runner = new ProjectionRunner(events, store, [ledgerProjection()], { leases: keeper, superviseIntervalMs: 100 });
      await runner.start();
      await keeper.start();
      stops.push(async () => {
        await keeper.stop();
        await runner.stop();
      });
      return runner;
    };
    const onSql = await start('sql', createSqlReadModelStore(db));
    const onMongo = await start('mongo', createMongoReadModelStore(mongo, { retireGraceMs: 0 }));
    const roles = async (r: ProjectionRunner) => (await r.status()).map((p) => p.role);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && ((await roles(onSql))[0] !== 'owner' || (await roles(onMongo))[0] !== 'owner')) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await roles(onSql)).toEqual(['owner']);
    expect(await roles(onMongo)).toEqual(['owner']);
    const applied = async () => (await onMongo.status())[0]!.active?.eventsApplied;
    while (Date.now() < deadline && (await applied()) !== 2) await new Promise((r) => setTimeout(r, 50));
    expect(await applied()).toBe(2); // the MongoDB read model is built, not left to a SQL owner

    const second = await start('sql-2', createSqlReadModelStore(db));
    await new Promise((r) => setTimeout(r, 500)); // a few heartbeats: it must not take a lease someone holds
    expect(await roles(second)).toEqual(['standby']);
    expect(await projectionsHealth(second, { runs: true })).toMatchObject({ status: 'up', ready: true, standby: true });
    expect(await projectionsHealth(onSql, { runs: true })).not.toHaveProperty('standby');
  });
});
