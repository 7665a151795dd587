import type { SqlDatabase } from '@dob/sql';
import { createTestPostgresDatabase } from '../../sql/src/testing/test-databases';
import { LeaseKeeper, leaseOwner } from './lease-keeper';
import { LeaseLostError, type HeldLease } from './lease.port';
import { assertLeaseHeld, createSqlLeaseStore } from './sql-lease-store';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SQL leases on PostgreSQL', () => {
  let db: SqlDatabase;
  beforeEach(async () => {
    // A connect timeout above the API's 1 s: eight racers connect at once, and on a loaded 2-core machine that took
    // longer than 1 s (a full-suite run, 2026-11-27); what these tests check is the leases, not the timeout.
    db = await createTestPostgresDatabase({ connectTimeoutMs: 10_000 });
  });
  afterEach(() => db.close());

  it('one holder at a time; a lapsed lease goes to a standby with a higher token, and the old token is fenced out', async () => {
    const store = createSqlLeaseStore(db);
    await store.init();
    const a = leaseOwner('test-a');
    const b = leaseOwner('test-b');
    const held = (await store.tryAcquire('work', a, 300))!;
    expect(held.token).toBe(1);
    expect(await store.tryAcquire('work', b, 300)).toBeNull();
    expect(await store.renew(held, 300)).toBe(true);
    await db.transaction((tx) => assertLeaseHeld(tx, { name: 'work', token: held.token }));

    await sleep(400); // a stops renewing: the lease lapses
    await expect(db.transaction((tx) => assertLeaseHeld(tx, { name: 'work', token: held.token }))).rejects.toBeInstanceOf(LeaseLostError);
    const taken = (await store.tryAcquire('work', b, 5_000))!;
    expect(taken.token).toBe(2);
    expect(await store.renew(held, 300)).toBe(false); // the zombie learns it lost
    await expect(db.transaction((tx) => assertLeaseHeld(tx, { name: 'work', token: 1 }))).rejects.toBeInstanceOf(LeaseLostError);
    const [record] = await store.list();
    expect(record).toMatchObject({ name: 'work', token: 2, lapsed: false, owner: { app: 'test-b', pid: process.pid } });
  });

  it('of many standbys racing for a lapsed lease exactly one wins', async () => {
    const store = createSqlLeaseStore(db);
    await store.init();
    const owners = Array.from({ length: 8 }, (_, i) => leaseOwner(`racer-${i}`));
    const results = await Promise.all(owners.map((o) => store.tryAcquire('contested', o, 5_000)));
    expect(results.filter((r): r is HeldLease => r !== null)).toHaveLength(1);
  });

  it('a takeover waits for a commit in flight under the old token, and every later commit is refused', async () => {
    const store = createSqlLeaseStore(db);
    await store.init();
    const old = (await store.tryAcquire('w', leaseOwner('old'), 200))!;
    let release!: () => void;
    const holding = new Promise<void>((r) => (release = r));
    const inFlight = db.transaction(async (tx) => {
      await assertLeaseHeld(tx, { name: 'w', token: old.token });
      await sleep(300); // the lease lapses while this commit is open
      await holding;
    });
    await sleep(250);
    let takenAt = 0;
    const takeover = store.tryAcquire('w', leaseOwner('new'), 5_000).then((l) => ((takenAt = Date.now()), l));
    await sleep(200);
    expect(takenAt).toBe(0); // blocked behind the old holder's open commit
    const releasedAt = Date.now();
    release();
    await inFlight;
    expect((await takeover)!.token).toBe(old.token + 1);
    expect(takenAt).toBeGreaterThanOrEqual(releasedAt);
    await expect(db.transaction((tx) => assertLeaseHeld(tx, { name: 'w', token: old.token }))).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('LeaseKeeper: a standby takes over when the holder stops, and a clean stop hands over at once (each change told to onChange)', async () => {
    const timing = { durationMs: 600, heartbeatMs: 100 };
    const events: string[] = [];
    const changes: string[] = [];
    const keeper = (name: string) => {
      const k = new LeaseKeeper(createSqlLeaseStore(db), leaseOwner(name), timing, undefined, (change, work) => void changes.push(`${name} ${change} ${work}`));
      k.claim('job', { onAcquired: (l) => void events.push(`${name}+${l.token}`), onLost: (l) => void events.push(`${name}-${l.token}`) });
      return k;
    };
    const first = keeper('first');
    await first.start();
    const second = keeper('second');
    await second.start();
    await sleep(300);
    expect(events).toEqual(['first+1']);
    await first.stop(); // releases: the standby takes over within a heartbeat
    const stoppedAt = Date.now();
    while (!events.includes('second+2')) {
      if (Date.now() - stoppedAt > 2_000) throw new Error(`no takeover: ${events.join(' ')}`);
      await sleep(20);
    }
    expect(events).toEqual(['first+1', 'first-1', 'second+2']);
    await second.stop();
    // What lease_changes_total counts (the LeaseChurn alert).
    expect(changes).toEqual(['first acquired job', 'first lost job', 'second acquired job', 'second lost job']);
  });
});
