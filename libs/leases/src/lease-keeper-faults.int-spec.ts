import type { SqlDatabase } from '@dob/sql';
import { createTestPostgresDatabase } from '../../sql/src/testing/test-databases';
import { LeaseKeeper, leaseOwner, type LeaseTiming } from './lease-keeper';
import type { HeldLease, LeaseStore } from './lease.port';
import { createSqlLeaseStore } from './sql-lease-store';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const timing: LeaseTiming = { durationMs: 600, heartbeatMs: 100 };

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

type Method = 'tryAcquire' | 'renew';

/**
 * The SQL store with faults on demand: calls that fail before reaching the database (`before`), and calls whose
 * answer is lost after they applied (`after`: committed, then the connection reset).
 */
function withFaults(inner: LeaseStore) {
  const failing = new Map<Method, { mode: 'before' | 'after'; times: number }>();
  const call = async <T>(method: Method, run: () => Promise<T>): Promise<T> => {
    const fault = failing.get(method);
    if (fault && fault.times-- <= 1) failing.delete(method);
    if (fault?.mode === 'before') throw new Error(`${method}: connection refused (injected)`);
    const result = await run();
    if (fault?.mode === 'after') throw new Error(`${method}: connection reset after it committed (injected)`);
    return result;
  };
  const store: LeaseStore = {
    init: () => inner.init(),
    tryAcquire: (name, owner, durationMs) => call('tryAcquire', () => inner.tryAcquire(name, owner, durationMs)),
    renew: (lease, durationMs, progress) => call('renew', () => inner.renew(lease, durationMs, progress)),
    release: (lease) => inner.release(lease),
    list: () => inner.list(),
  };
  return {
    store,
    fail: (method: Method, mode: 'before' | 'after', times = 1) => void failing.set(method, { mode, times }),
    heal: () => failing.clear(),
  };
}

describe('LeaseKeeper under store faults and slow handlers (PostgreSQL)', () => {
  let db: SqlDatabase;
  const keepers: LeaseKeeper[] = [];
  const unblock: (() => void)[] = []; // a hung handler is let go before the keepers stop, even if a test fails
  beforeEach(async () => {
    db = await createTestPostgresDatabase();
  });
  afterEach(async () => {
    for (const go of unblock.splice(0)) go();
    await Promise.all(keepers.splice(0).map((k) => k.stop()));
    await db.close();
  });

  const keeper = (store: LeaseStore, name: string) => {
    const k = new LeaseKeeper(store, leaseOwner(name), timing);
    keepers.push(k);
    return k;
  };
  const events = () => {
    const seen: string[] = [];
    const handlers = (who: string) => ({
      onAcquired: (l: HeldLease) => void seen.push(`${who}+${l.token}`),
      onLost: (l: HeldLease) => void seen.push(`${who}-${l.token}`),
    });
    return { seen, handlers };
  };
  const row = async (name: string) => (await createSqlLeaseStore(db).list()).find((r) => r.name === name);

  it('an acquire that committed but whose answer was lost: the next try recognises the row as its own (no wait for the lapse)', async () => {
    const faulty = withFaults(createSqlLeaseStore(db));
    const { seen, handlers } = events();
    faulty.fail('tryAcquire', 'after');
    const first = keeper(faulty.store, 'first');
    const claim = first.claim('job', handlers('first'));
    const standby = keeper(createSqlLeaseStore(db), 'standby');
    standby.claim('job', handlers('standby'));
    await first.start();
    expect(claim.held()).toBeNull(); // the row is first's (token 1), first does not know it yet
    expect((await row('job'))?.owner.app).toBe('first');
    await standby.start();
    const started = Date.now();
    await until('first to hold job', () => claim.held() !== null);
    expect(Date.now() - started).toBeLessThan(timing.durationMs); // one heartbeat, not the lease's lapse
    expect(claim.held()?.token).toBe(2);
    expect(seen).toEqual(['first+2']); // token 1 never ran any work; the standby never took it
  });

  it('a renewal that committed but whose answer was lost keeps the lease; failing past the deadline loses it, and the same owner takes it back at once', async () => {
    const faulty = withFaults(createSqlLeaseStore(db));
    const { seen, handlers } = events();
    const first = keeper(faulty.store, 'first');
    const claim = first.claim('job', handlers('first'));
    const standby = keeper(createSqlLeaseStore(db), 'standby');
    standby.claim('job', handlers('standby'));
    await first.start();
    await standby.start();

    faulty.fail('renew', 'after', 2); // two heartbeats' answers lost: well within the lease
    await sleep(5 * timing.heartbeatMs);
    expect(seen).toEqual(['first+1']);
    expect(claim.held()?.token).toBe(1);

    // Renewals keep landing but no answer comes back for longer than the lease: first stops its work by its own
    // deadline (it cannot know they landed), while the row stays first's, so the standby cannot take it ...
    faulty.fail('renew', 'after', 1_000);
    await until('first to give the lease up locally', () => seen.includes('first-1'));
    faulty.heal();
    // ... and first's next try takes its own row back with a higher token (the old token's commits are fenced out).
    await until('first to hold job again', () => claim.held() !== null, 3 * timing.heartbeatMs);
    expect(claim.held()?.token).toBe(2);
    expect(seen).toEqual(['first+1', 'first-1', 'first+2']);
  });
});
