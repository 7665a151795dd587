import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../sql/src/testing/test-databases';
import { ProjectionRunner } from './runner/projection-runner';
import { createSqlReadModelStore } from './sql/sql-read-model-store';
import { credit, ledgerProjection } from './testing/ledger.projection';

const N = 5000;
const ROOT = join(__dirname, '../../..');

/**
 * Exactly-once effects across a crash: a child process is SIGKILLed inside a batch transaction; restarting the
 * projection must give the same model as a clean build into separate tables, with no event applied twice.
 */
describe('exactly-once projection effects across SIGKILL (PostgreSQL)', () => {
  const schema = testSchemaName();
  let db: SqlDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    store = await createSqlEventStore(db, { pollIntervalMs: 20 });
    const events = Array.from({ length: N }, (_, i) => credit(i));
    for (let i = 0; i < N; i += 500) await store.appendToStream(`ledger-${i}`, events.slice(i, i + 500));
  });
  afterAll(async () => {
    await store.close();
    await db.close();
  });

  /** Runs the child until it SIGKILLs itself. */
  async function killedChild(env: Record<string, string>): Promise<void> {
    const child = spawn(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(__dirname, 'testing/exactly-once-child.ts')], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: TEST_POSTGRES_URL, SCHEMA: schema, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    expect({ ...exit, stderr }).toEqual({ code: null, signal: 'SIGKILL', stderr: '' });
  }

  it('a restart after a mid-batch kill equals a clean rebuild, no event applied twice', async () => {
    const killAfter = randomInt(1000, 4000);
    await killedChild({ KILL_AFTER: String(killAfter), BATCH: '100' });

    const readModels = createSqlReadModelStore(db);
    const crashed = (await readModels.states('ledger'))[0]!;
    // Killed inside the batch that crossed killAfter: only whole earlier batches are in, that one rolled back.
    expect(crashed.eventsApplied).toBe(Math.floor((killAfter - 1) / 100) * 100);
    expect((await readModels.documents(ledgerProjection(), 'applied')).length).toBe(crashed.eventsApplied);

    const runner = new ProjectionRunner(store, readModels, [ledgerProjection(), ledgerProjection({ name: 'ledger_clean' })], {
      batchSize: 100,
    });
    try {
      await runner.start();
      await runner.waitUntilCaughtUp();
    } finally {
      await runner.stop();
    }
    const model = (name: string) => readModels.documents(ledgerProjection({ name }), 'balances');
    const restarted = await model('ledger');
    expect(restarted).toEqual(await model('ledger_clean'));
    expect(restarted.reduce((n, r) => n + Number(r.credits), 0)).toBe(N);
    const times = (await readModels.documents(ledgerProjection(), 'applied')).map((d) => d.times);
    expect({ n: times.length, max: Math.max(...(times as number[])), min: Math.min(...(times as number[])) }).toEqual({ n: N, max: 1, min: 1 });
    expect(crashed.eventsApplied).toBeLessThan(N);
  });

  it('a rebuild killed among buffered batches resumes from its last write-out and equals a clean build', async () => {
    // Pages of 200: the first goes in directly, then a write-out is due every 4 pages (800 >= 700 events) at 1,000,
    // 1,800, … and commits behind the next pages; the one due at 1,800 waits for the one at 1,000 first. A page is
    // reduced ahead while the one before it commits, so an event past 2,000 is handed to apply only once the
    // write-out at 1,000 has committed: a kill after that finds at least one write-out stored.
    const killAfter = randomInt(2100, 4500);
    await killedChild({ MODE: 'rebuild', KILL_AFTER: String(killAfter), BUILD_EVENTS: '700' });
    const readModels = createSqlReadModelStore(db);
    const building = (await readModels.states('ledger')).find((s) => !s.active && s.status === 'rebuilding')!;
    // Stored up to a write-out's end, rows and checkpoint alike: a write-out cut short rolled back whole.
    expect(building.eventsApplied).toBeGreaterThanOrEqual(1000);
    expect((building.eventsApplied - 200) % 800).toBe(0);
    expect(building.eventsApplied).toBeLessThan(killAfter);
    const table = building.tables.applied!;
    const { rows } = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`);
    expect(Number(rows[0]!.n)).toBe(building.eventsApplied);

    const runner = new ProjectionRunner(store, readModels, [ledgerProjection(), ledgerProjection({ name: 'ledger_rebuilt_clean' })], {
      batchSize: 100,
      catchUpBatchSize: 200,
    });
    const resumed = await runner.rebuild('ledger');
    await runner.rebuild('ledger_rebuilt_clean');
    expect(resumed.to).toEqual(building.slot);
    const model = (name: string) => readModels.documents(ledgerProjection({ name }), 'balances');
    expect(await model('ledger')).toEqual(await model('ledger_rebuilt_clean'));
    const times = (await readModels.documents(ledgerProjection(), 'applied')).map((d) => d.times as number);
    expect({ n: times.length, max: Math.max(...times), min: Math.min(...times) }).toEqual({ n: N, max: 1, min: 1 });
  });
});
