import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { createSqlLeaseStore } from '@dob/leases';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../sql/src/testing/test-databases';
import { credit } from './testing/ledger.projection';

const ROOT = join(__dirname, '../../..');
const LEASE_MS = 2000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Child {
  readonly process: ChildProcess;
  output(): string;
}

/**
 * Fencing across processes: two projector processes share one projection under a lease; the owner is paused
 * (SIGSTOP) mid-batch past its lease, the standby takes over, then the paused one resumes (SIGCONT). Everything the
 * old owner applied after the takeover must be refused: every event is applied exactly once, and no row written by
 * the old owner was written after the new owner's lease began.
 */
describe('a paused projection owner commits nothing after losing its lease (PostgreSQL, child processes)', () => {
  const schema = testSchemaName();
  let db: SqlDatabase;
  let store: EventStore;
  const children: Child[] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    store = await createSqlEventStore(db, { pollIntervalMs: 20 });
  });
  afterAll(async () => {
    for (const c of children) {
      c.process.kill('SIGCONT');
      c.process.kill('SIGKILL');
    }
    await store.close();
    await db.close();
  });

  const start = (): Child => {
    const child = spawn(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(__dirname, 'testing/leased-runner-child.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: TEST_POSTGRES_URL,
        SCHEMA: schema,
        LEASE_DURATION_MS: String(LEASE_MS),
        LEASE_HEARTBEAT_MS: '300',
        APPLY_MS: '150',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const c = { process: child, output: () => out };
    children.push(c);
    return c;
  };
  const until = async (what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${children.map((c) => c.output().slice(-2000)).join('\n---\n')}`);
      await sleep(20);
    }
  };

  it('the standby takes over, the resumed zombie is fenced, every event applied once', async () => {
    let appended = 0;
    let appending = true;
    const appender = (async () => {
      while (appending) {
        await store.appendToStream(
          `ledger-${appended}`,
          Array.from({ length: 10 }, (_, i) => credit(appended + i)),
        );
        appended += 10;
        await sleep(40);
      }
    })();

    const first = start();
    await until('the first process to own the projection', () => first.output().includes('acquired projection:probe'));
    const second = start();
    await until('the second process to stand by', () => second.output().includes('started'));
    await until('the owner to be applying', () => (first.output().match(/applying/g) ?? []).length >= 5);
    const mark = first.output().length;
    await until("a batch in the owner's hands", () => first.output().slice(mark).includes('applying'), 5_000);
    first.process.kill('SIGSTOP'); // mid-batch: its transaction is open, the checkpoint row locked
    const pausedAt = Date.now();

    await until('the standby to take over', () => second.output().includes('acquired projection:probe'), 20_000);
    const takeoverMs = Date.now() - pausedAt;
    console.log(`takeover after SIGSTOP of the owner: ${takeoverMs} ms (lease ${LEASE_MS} ms)`);
    await until('the new owner to apply', () => second.output().includes('applying'), 10_000);
    first.process.kill('SIGCONT');
    await until('the resumed process to notice it lost the lease', () => first.output().includes('lost projection:probe'), 10_000);
    await sleep(1000); // let the zombie try whatever it had in hand

    appending = false;
    await appender;
    const rows = async () => (await db.query<{ n: string }>('SELECT count(*) AS n FROM rm_probe_applied')).rows[0]!.n;
    await until('every event applied', async () => Number(await rows()) >= appended, 30_000);

    const [lease] = await createSqlLeaseStore(db).list();
    expect(lease).toMatchObject({ name: 'projection:probe', token: 2, owner: { pid: second.process.pid } });
    const { rows: applied } = await db.query<{ event_id: string; pid: number; at: Date }>('SELECT event_id, pid, at FROM rm_probe_applied');
    const ids = applied.map((r) => r.event_id);
    expect(new Set(ids).size).toBe(ids.length); // nothing applied twice
    expect(ids.length).toBe(appended);
    const byZombieAfterTakeover = applied.filter((r) => r.pid === first.process.pid && r.at.getTime() >= lease.acquiredAt.getTime());
    expect(byZombieAfterTakeover).toEqual([]);
    expect(applied.filter((r) => r.pid === first.process.pid).length).toBeGreaterThan(0);
    expect(applied.filter((r) => r.pid === second.process.pid).length).toBeGreaterThan(0);
    // The zombie survived its fencing (its paused transaction was ended by the server, or its commit refused) and
    // stands by: it would take over again if the new owner died.
    expect(first.process.exitCode).toBeNull();
    expect(first.output()).toContain('lost projection:probe (token 1)');
    // The checkpoint says who moved it last: the new owner, under its token (what the fault suite's probe reads).
    const { rows: checkpoint } = await db.query<{ fence_name: string; fence_token: string }>(
      `SELECT fence_name, fence_token FROM projection_checkpoints WHERE name = 'probe'`,
    );
    expect(checkpoint).toEqual([{ fence_name: 'projection:probe', fence_token: '2' }]);
  });
});
