import { createSqlEventStore } from '@dob/event-store';
import type { LeaseClaim, LeaseKeeper } from '@dob/leases';
import { createPgliteDatabase } from '@dob/sql';
import { createSqlReadModelStore } from '../sql/sql-read-model-store';
import { credit, ledgerProjection } from '../testing/ledger.projection';
import { ProjectionRunner } from './projection-runner';

/**
 * Under leases a worker never runs unfenced: a lease lost between the runner's check of its claim and the worker's
 * start (the claim still says held, its fence is already gone) starts no worker, so nothing is committed without a
 * token the store can check.
 */
describe('a projection worker under a lease lost before it started', () => {
  it('is not started: nothing committed, the refusal logged', async () => {
    // bounded below: a runner that did start the worker unfenced has been seen to hang on stop
    const db = await createPgliteDatabase();
    const events = await createSqlEventStore(db, { pollIntervalMs: 20 });
    await events.appendToStream('ledger-a', [credit(1), credit(2)]);
    const claim: LeaseClaim = {
      name: 'projection:ledger',
      held: () => ({ name: 'projection:ledger', token: 1, ownerId: 'me' }),
      heldSince: () => new Date(),
      fence: () => null, // lost in between
    };
    const keeper = { claim: () => claim } as unknown as LeaseKeeper;
    const lines: string[] = [];
    const runner = new ProjectionRunner(events, createSqlReadModelStore(db), [ledgerProjection()], {
      leases: keeper,
      superviseIntervalMs: 50,
      log: (l) => lines.push(l),
    });
    await runner.start().catch((e: Error) => lines.push(e.message));
    await new Promise((r) => setTimeout(r, 300)); // a few supervisor rounds
    await runner.stop();
    const [report] = await runner.status();
    expect(report!.active?.eventsApplied ?? 0).toBe(0);
    expect(lines.join('\n')).toContain('lost before the worker started');
    await events.close();
    await db.close();
  }, 20_000);
});
