import { createSqlEventStore } from '@dob/event-store';
import { LeaseKeeper, createSqlLeaseStore, leaseOwner } from '@dob/leases';
import { createPgliteDatabase } from '@dob/sql';
import type { ReadModelStore } from '../read-model-store.port';
import { createSqlReadModelStore } from '../sql/sql-read-model-store';
import { credit, ledgerProjection } from '../testing/ledger.projection';
import { ProjectionRunner } from './projection-runner';

/**
 * A projection stands by until this process acquires its lease; the reconcile that then starts its worker runs
 * after the acquisition, not inside it. In between, the runner is not caught up: a standby counts only while the
 * lease is someone else's. (ops' cluster-status test once read a lag of 14 events after waitUntilCaughtUp.)
 */
describe('waitUntilCaughtUp under a lease this process has just acquired', () => {
  it('waits for the worker the acquisition starts, not only for the acquisition', async () => {
    const db = await createPgliteDatabase();
    const events = await createSqlEventStore(db, { pollIntervalMs: 20 });
    await events.appendToStream('ledger-a', [credit(1), credit(2)]);
    const store = createSqlReadModelStore(db);
    // The reconcile after acquisition reads the active slot first: held here until the test lets it go.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reconciling = false;
    const gated: ReadModelStore = Object.create(store, {
      activeSlot: {
        value: async (name: string) => {
          reconciling = true;
          await gate;
          return store.activeSlot(name);
        },
      },
    });
    const keeper = new LeaseKeeper(createSqlLeaseStore(db), leaseOwner('caught-up'), { durationMs: 2000, heartbeatMs: 100 });
    const runner = new ProjectionRunner(events, gated, [ledgerProjection()], { leases: keeper, superviseIntervalMs: 60_000 });
    await runner.start();
    expect(runner.isCaughtUp()).toBe(true); // standing by for a lease nobody here holds

    await keeper.start();
    const deadline = Date.now() + 10_000;
    while (!reconciling && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(reconciling).toBe(true); // the lease is held and its reconcile is waiting on the gate
    expect(runner.isCaughtUp()).toBe(false);
    let waited = false;
    const waiting = runner.waitUntilCaughtUp(10_000).then(() => (waited = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(waited).toBe(false);

    release();
    await waiting;
    const [report] = await runner.status();
    expect(report).toMatchObject({ role: 'owner', caughtUp: true });
    expect(report!.active?.eventsApplied).toBe(2);

    await keeper.stop();
    await runner.stop();
    await events.close();
    await db.close();
  }, 30_000);
});
