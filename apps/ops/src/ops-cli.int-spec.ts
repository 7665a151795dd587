import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { openMongoDatabase } from '@dob/mongo';
import { testMongoUrl } from '../../../libs/mongo/src/testing/test-mongo';
import { createMongoReadModelReader } from '@dob/read-models';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../libs/sql/src/testing/test-databases';
import { busyWorld } from '../../../libs/read-models/src/testing/busy-world';

const ROOT = join(__dirname, '../../..');
const ops = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(__dirname, 'main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: '', ...env },
    encoding: 'utf8',
  });

describe('ops CLI', () => {
  it('refuses a PGlite folder locked by a live process, with a clear message and exit 1', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ops-'));
    writeFileSync(join(dataDir, 'LOCK'), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
    const r = ops(['projections', 'status'], { DATA_DIR: dataDir });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`in use by process ${process.pid}`);
    expect(r.stderr).toContain('stop `npm start` first');
  });

  it('shows who holds the data folder and removes a LOCK only when stale or forced', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ops-lock-'));
    writeFileSync(join(dataDir, 'LOCK'), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
    const status = ops(['data-dir', 'status'], { DATA_DIR: dataDir });
    expect(status.stdout).toContain(`locked, in use by process ${process.pid}`);
    const refused = ops(['data-dir', 'unlock'], { DATA_DIR: dataDir });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('add --force');
    const forced = ops(['data-dir', 'unlock', '--force'], { DATA_DIR: dataDir });
    expect(forced.stdout).toContain('LOCK removed');
    expect(ops(['data-dir', 'status'], { DATA_DIR: dataDir }).stdout).toContain('not locked');

    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    writeFileSync(join(dataDir, 'LOCK'), JSON.stringify({ pid: dead, startedAt: new Date().toISOString() }));
    expect(ops(['data-dir', 'status'], { DATA_DIR: dataDir }).stdout).toContain(`stale LOCK, process ${dead} is gone`);
    expect(ops(['data-dir', 'unlock'], { DATA_DIR: dataDir }).stdout).toContain('LOCK removed');
  });

  it('refuses a kafka replay whose --from comes after its --to, with one clear line and exit 1', () => {
    // Refused before any connection: nothing to publish is an operator's mistake, not "re-published 0 events".
    const backwards = ops(['kafka', 'replay', '--from', '50:12', '--to', '40:11'], { KAFKA_BROKERS: '127.0.0.1:1' });
    expect([backwards.status, backwards.stderr.trim()]).toEqual([1, '--from 50:12 comes after --to 40:11: nothing to re-publish']);
    const sameCommit = ops(['kafka', 'replay', '--from', '7:9', '--to', '7:8'], { KAFKA_BROKERS: '127.0.0.1:1' });
    expect([sameCommit.status, sameCommit.stderr.trim()]).toEqual([1, '--from 7:9 comes after --to 7:8: nothing to re-publish']);
  });

  it('rebuilds a projection on PostgreSQL and reports status and event stats', async () => {
    const schema = testSchemaName();
    const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    const store = await createSqlEventStore(db);
    await store.appendToStream('s', [
      { id: '20000000-0000-4000-8000-000000000001', type: 'test.a', version: 1, data: {} },
      { id: '20000000-0000-4000-8000-000000000002', type: 'test.a', version: 1, data: {} },
      { id: '20000000-0000-4000-8000-000000000003', type: 'test.b', version: 1, data: {} },
    ]);
    await store.close();
    await db.close();
    const env = { DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}` };

    const rebuild = ops(['projections', 'rebuild', 'event_type_counts'], env);
    expect(rebuild.stderr).toBe('');
    expect(rebuild.stdout).toContain('switched event_type_counts to v1 g0 (from nothing), 3 events applied');

    const status = ops(['projections', 'status', '--json'], env);
    expect(status.status).toBe(0);
    // Every registered projection is listed; only the rebuilt one has an active slot yet.
    const reports = JSON.parse(status.stdout) as { name: string; active: unknown }[];
    expect(reports.find((r) => r.name === 'event_type_counts')).toEqual(
      expect.objectContaining({ active: expect.objectContaining({ status: 'live', eventsApplied: 3, lag: 0 }) }),
    );
    expect(reports.filter((r) => r.name !== 'event_type_counts').every((r) => r.active === null)).toBe(true);

    const stats = ops(['events', 'stats', '--json'], env);
    expect(JSON.parse(stats.stdout)).toMatchObject({ events: 3, streams: 1, byType: { 'test.a': 2, 'test.b': 1 } });

    const unknown = ops(['projections', 'reset', 'nope'], env);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('unknown projection nope');

    // --all: every registered projection, one after another; each prints its switch.
    const all = ops(['projections', 'rebuild', '--all'], env);
    expect(all.stderr).toBe('');
    const names = reports.map((r) => r.name);
    for (const name of names) expect(all.stdout).toMatch(new RegExp(`switched ${name} to v\\d+ g\\d+ \\(from `));
    expect(all.stdout).toContain('switched event_type_counts to v1 g1 (from v1 g0), 3 events applied');
    const rebuilt = JSON.parse(ops(['projections', 'status', '--json'], env).stdout) as { name: string; active: { status: string } | null }[];
    expect(rebuilt.map((r) => [r.name, r.active?.status])).toEqual(names.map((n) => [n, 'live']));
    expect(ops(['projections', 'rebuild'], env).stderr).toContain('name the projections to rebuild, or pass --all');
    expect(ops(['projections', 'rebuild', 'pools', '--all'], env).stderr).toContain('pass projection names or --all, not both');
  });

  it('rebuilds read models in MongoDB (MONGODB_URL) blue/green into new collections and sets featured picks there', async () => {
    const schema = testSchemaName();
    const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    for (const a of busyWorld(2).streamAppends()) await store.appendToStream(a.streamId, a.events);
    await store.close();
    await db.close();
    const mongo = testMongoUrl();
    const env = { DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}`, MONGODB_URL: mongo.url };
    const m = await openMongoDatabase(mongo.url);
    try {
      const first = ops(['projections', 'rebuild', 'pools'], env);
      expect(first.stderr).toBe('');
      expect(first.stdout).toMatch(/switched pools to v\d+ g0 \(from nothing\)/);
      const second = ops(['projections', 'rebuild', 'pools'], env);
      expect(second.stderr).toBe('');
      expect(second.stdout).toMatch(/switched pools to v(\d+) g1 \(from v\1 g0\)/);
      const status = JSON.parse(ops(['projections', 'status', '--json'], env).stdout) as {
        name: string;
        active: { slot: { generation: number }; lag: number } | null;
      }[];
      expect(status.find((r) => r.name === 'pools')!.active).toMatchObject({ slot: { generation: 1 }, lag: 0 });
      const collections = (await m.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
      expect(collections).toContain('rm_pools_v3_g1_pools'); // the new generation's collection (the old one is retired after a grace)

      const pool = (await createMongoReadModelReader(m).poolPage({}, 'created_asc', { offset: 0, limit: 1 })).rows[0]!;
      const set = ops(['featured', 'set', pool.address, '--network', '9', '--reason', 'Operator pick'], env);
      expect(set.stderr).toBe('');
      expect((await m.db.collection('featured_pool_overrides').find({}).toArray()).map((o) => [o.address, o.reason])).toEqual([
        [pool.address, 'Operator pick'],
      ]);
    } finally {
      await m.close();
      await mongo.drop();
    }
  });
});
