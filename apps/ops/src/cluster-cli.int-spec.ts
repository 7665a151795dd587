import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { LeaseKeeper, createSqlLeaseStore, leaseOwner } from '@dob/leases';
import { ProjectionRunner, createSqlReadModelStore } from '@dob/projections';
import { projectionRegistry } from '@dob/read-models';
import { systemEventCatalog } from '@dob/runtime';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../libs/sql/src/testing/test-databases';
import { flowBatch } from '../../../libs/kafka-relay/src/testing/event-flow';
import type { ClusterOwnership } from './commands/cluster.command';

const ROOT = join(__dirname, '../../..');

/** `ops cluster status` on PostgreSQL: the leases of two projector processes' worth of work, with owners and lag. */
describe('ops cluster status', () => {
  const schema = testSchemaName();
  const ops = (args: string[]) =>
    spawnSync(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(__dirname, 'main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}` },
      encoding: 'utf8',
    });
  let db: SqlDatabase;
  let store: EventStore;
  beforeAll(async () => {
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    store = await createSqlEventStore(db, { catalog: systemEventCatalog() });
  });
  afterAll(async () => {
    await store.close();
    await db.close();
  });

  it('says there are no leases before any, then lists owner, since, token and lag per piece of work', async () => {
    const before = ops(['cluster', 'status']);
    expect(before.stdout).toContain('no leases');

    await store.appendMany(flowBatch('cluster', 0, 40, 2));
    const keeper = new LeaseKeeper(createSqlLeaseStore(db), leaseOwner('projector'), { durationMs: 60_000, heartbeatMs: 1_000 });
    const runner = new ProjectionRunner(store, createSqlReadModelStore(db), projectionRegistry, { leases: keeper });
    await runner.start();
    await keeper.start();
    // keeper.start() has acquired every lease: the wait lasts until each projection's worker has caught up.
    await runner.waitUntilCaughtUp();
    await keeper.stop(); // released: the leases stay listed, lapsed, with their last owner
    await runner.stop();

    const json = ops(['cluster', 'status', '--json']);
    expect(json.stderr).toBe('');
    const rows = JSON.parse(json.stdout) as ClusterOwnership[];
    expect(rows.map((r) => r.work).sort()).toEqual(projectionRegistry.map((p) => `projection:${p.name}`).sort());
    for (const r of rows) {
      expect(r).toMatchObject({ state: 'lapsed', token: 1, owner: { app: 'projector', pid: process.pid }, lag: '0 events' });
    }
    const table = ops(['cluster', 'status']);
    expect(table.stdout).toMatch(/projection:pools\s+lapsed\s+projector\s+\S+\s+\d+\s+\S+\s+1\s+0 events/);
  });
});
