import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { testDatabases, type SqlDatabase, type SqlExecutor } from '@dob/sql';
import { eventTypeCountsProjection, readEventTypeCounts } from './event-type-counts.projection';
import { ProjectionFaultedError, ProjectionRunner } from './runner/projection-runner';
import { createSqlReadModelStore } from './sql/sql-read-model-store';
import { credit, ledgerProjection } from './testing/ledger.projection';

const appendCredits = async (store: EventStore, from: number, to: number, poisonAt?: number) => {
  const events = [];
  for (let i = from; i < to; i++) events.push(credit(i, i === poisonAt ? { poison: true } : {}));
  for (let i = 0; i < events.length; i += 500) await store.appendToStream(`acct-${from}-${i}`, events.slice(i, i + 500));
};

const balances = async (db: SqlDatabase, relation: string) =>
  (await db.query<{ account: string; balance: string; credits: number }>(`SELECT account, balance::text AS balance, credits FROM ${relation} ORDER BY account`)).rows;

describe.each(testDatabases())('ProjectionRunner on $name', (factory) => {
  let db: SqlDatabase;
  let store: EventStore;
  const runners: ProjectionRunner<SqlExecutor>[] = [];
  const runner = (...args: ConstructorParameters<typeof ProjectionRunner<SqlExecutor>>) => {
    const r = new ProjectionRunner<SqlExecutor>(...args);
    runners.push(r);
    return r;
  };

  beforeEach(async () => {
    db = await factory.create();
    store = await createSqlEventStore(db, { pollIntervalMs: 20 });
  });
  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await store.close();
    await db.close();
  });

  it('applies batches with their checkpoint, reports lag, and serves through stable views', async () => {
    await appendCredits(store, 0, 1200);
    await store.appendToStream('other', [{ id: '10000000-0000-4000-8000-000000000001', type: 'test.other', version: 1, data: {} }]);
    const readModels = createSqlReadModelStore(db);
    const r = runner(store, readModels, [ledgerProjection(), eventTypeCountsProjection], { batchSize: 250, superviseIntervalMs: 50 });

    const before = await r.status();
    expect(before.map((p) => p.active)).toEqual([null, null]);
    await r.start();
    await r.waitUntilCaughtUp();

    const status = await r.status();
    const ledger = status.find((p) => p.name === 'ledger')!;
    expect(ledger.active).toMatchObject({ slot: { name: 'ledger', version: 1, generation: 0 }, status: 'live', eventsApplied: 1200, lag: 0 });
    expect(status.find((p) => p.name === 'event_type_counts')!.active).toMatchObject({ eventsApplied: 1201, lag: 0 });
    expect(await readEventTypeCounts(db)).toEqual([
      expect.objectContaining({ eventType: 'test.credited', events: 1200 }),
      expect.objectContaining({ eventType: 'test.other', events: 1 }),
    ]);
    const rows = await balances(db, 'rm_ledger_balances');
    expect(rows.reduce((n, x) => n + x.credits, 0)).toBe(1200);
    // sum of 1000 + i for i < 1200
    expect(rows.reduce((n, x) => n + BigInt(x.balance), 0n)).toBe(1200n * 1000n + (1199n * 1200n) / 2n);
    const twice = await db.query(`SELECT 1 FROM rm_ledger_applied WHERE times <> 1`);
    expect(twice.rows).toHaveLength(0);

    // Live events keep flowing after catch-up.
    await appendCredits(store, 1200, 1300);
    await waitFor(async () => (await balances(db, 'rm_ledger_balances')).reduce((n, x) => n + x.credits, 0) === 1300);
  });

  it('faults a projection on a poison event after applying the good prefix; the others keep running', async () => {
    await appendCredits(store, 0, 300, 137);
    const readModels = createSqlReadModelStore(db);
    const r = runner(store, readModels, [ledgerProjection(), eventTypeCountsProjection], { batchSize: 100, superviseIntervalMs: 50 });
    await r.start();
    await r.waitUntilCaughtUp();

    const ledger = (await r.status()).find((p) => p.name === 'ledger')!;
    const poison = credit(137);
    expect(ledger.active).toMatchObject({ status: 'faulted', eventsApplied: 137, lag: 163 });
    expect(ledger.active!.fault).toMatchObject({ eventId: poison.id });
    expect(ledger.active!.fault!.error).toContain('cannot apply poison credit');
    expect(ledger.active!.fault!.position).not.toBeNull();
    // Exactly the good prefix is in the model: events 0..136.
    const rows = await balances(db, 'rm_ledger_balances');
    expect(rows.reduce((n, x) => n + x.credits, 0)).toBe(137);

    await appendCredits(store, 300, 310);
    await waitFor(async () => (await readEventTypeCounts(db))[0]?.events === 310);
    expect((await r.status()).find((p) => p.name === 'ledger')!.active!.eventsApplied).toBe(137);

    // A rebuild with a still-broken definition fails and leaves the faulted model serving.
    await expect(r.rebuild('ledger')).rejects.toBeInstanceOf(ProjectionFaultedError);
    expect((await balances(db, 'rm_ledger_balances')).reduce((n, x) => n + x.credits, 0)).toBe(137);
  });

  it('rebuilds blue/green while queries keep seeing a complete model, then the new slot serves', async () => {
    const N = 3000;
    await appendCredits(store, 0, N);
    const readModels = createSqlReadModelStore(db);
    const r = runner(store, readModels, [ledgerProjection()], { batchSize: 20, superviseIntervalMs: 50 });
    await r.start();
    await r.waitUntilCaughtUp();
    const expected = await balances(db, 'rm_ledger_balances');

    let stop = false;
    let queries = 0;
    const failures: string[] = [];
    const reader = (async () => {
      while (!stop) {
        try {
          const rows = await balances(db, 'rm_ledger_balances');
          if (JSON.stringify(rows) !== JSON.stringify(expected)) failures.push(`partial model: ${rows.length} rows`);
        } catch (e) {
          failures.push(String(e));
        }
        queries += 1;
        await new Promise((res) => setImmediate(res));
      }
    })();
    const progress: number[] = [];
    const result = await r.rebuild('ledger', { onProgress: (p) => progress.push(p.applied) });
    stop = true;
    await reader;

    expect(failures).toEqual([]);
    expect(queries).toBeGreaterThan(5);
    expect(result).toEqual({ from: { name: 'ledger', version: 1, generation: 0 }, to: { name: 'ledger', version: 1, generation: 1 }, eventsApplied: N });
    expect(progress.at(-1)).toBe(N);
    expect(await balances(db, 'rm_ledger_balances')).toEqual(expected);
    const tables = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'rm_ledger%' ORDER BY 1`,
    );
    // Old generation dropped; the stable names are views over generation 1.
    expect(tables.rows.map((t) => t.table_name)).toEqual([
      'rm_ledger_applied',
      'rm_ledger_balances',
      'rm_ledger_v1_g1_applied',
      'rm_ledger_v1_g1_balances',
    ]);
    // The runner follows the new slot live.
    await appendCredits(store, N, N + 10);
    await waitFor(async () => (await balances(db, 'rm_ledger_balances')).reduce((n, x) => n + x.credits, 0) === N + 10);
    const status = (await r.status())[0]!;
    expect(status.active).toMatchObject({ slot: { generation: 1 }, status: 'live', eventsApplied: N + 10 });
    expect(status.building).toBeNull();
  });

  it('builds a new definition version beside the old one on start and switches when caught up', async () => {
    await appendCredits(store, 0, 500);
    const readModels = createSqlReadModelStore(db);
    const v1 = runner(store, readModels, [ledgerProjection()], { superviseIntervalMs: 50 });
    await v1.start();
    await v1.waitUntilCaughtUp();
    await v1.stop();

    const v2 = runner(store, readModels, [ledgerProjection({ version: 2 })], { batchSize: 50, superviseIntervalMs: 50 });
    await v2.start();
    await v2.waitUntilCaughtUp();
    const status = (await v2.status())[0]!;
    expect(status.active).toMatchObject({ slot: { version: 2, generation: 0 }, eventsApplied: 500, lag: 0 });
    expect((await readModels.states('ledger')).map((s) => s.slot.version)).toEqual([2]);
    expect((await balances(db, 'rm_ledger_balances')).reduce((n, x) => n + x.credits, 0)).toBe(500);
  });

  it('reset replays the active slot from START and retry clears a fault', async () => {
    await appendCredits(store, 0, 50, 10);
    const readModels = createSqlReadModelStore(db);
    let allowPoison = false;
    const def = ledgerProjection();
    const tolerant = { ...def, apply: (tx: Parameters<typeof def.apply>[0], events: Parameters<typeof def.apply>[1], t: Parameters<typeof def.apply>[2]) =>
      def.apply(tx, allowPoison ? events.map((e) => ({ ...e, data: { ...(e.data as object), poison: false } })) : events, t) };
    const r = runner(store, readModels, [tolerant], { batchSize: 20, superviseIntervalMs: 50 });
    await r.start();
    await r.waitUntilCaughtUp();
    expect((await r.status())[0]!.active).toMatchObject({ status: 'faulted', eventsApplied: 10 });

    allowPoison = true; // "the fix is deployed"
    await r.retry('ledger');
    await waitFor(async () => (await r.status())[0]!.active!.eventsApplied === 50);
    expect((await r.status())[0]!.active).toMatchObject({ fault: null });

    await r.reset('ledger');
    await r.waitUntilCaughtUp();
    await waitFor(async () => (await r.status())[0]!.active!.eventsApplied === 50);
    const twice = await db.query(`SELECT 1 FROM rm_ledger_applied WHERE times <> 1`);
    expect(twice.rows).toHaveLength(0);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
