import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createSqlEventStore } from '@dob/event-store';
import { createPostgresDatabase } from '@dob/sql';
import { TcpProxy } from '../../../test/faults/tcp-proxy';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../libs/sql/src/testing/test-databases';

const ROOT = join(__dirname, '../../..');
const CLI = ['-r', join(ROOT, 'scripts/register.js'), join(__dirname, 'main.ts')];
const childEnv = (env: Record<string, string>) => ({ ...process.env, NODE_OPTIONS: '', DATABASE_URL: '', ...env });

/** The CLI as a child process; killed (status null) if it has not ended within `limitMs`. */
function opsWithin(limitMs: number, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: childEnv(env) });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  const started = performance.now();
  const ended = new Promise<{ status: number | null; stderr: string; seconds: number }>((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('exit', (status) => {
      clearTimeout(kill);
      resolve({ status, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
  return { child, ended };
}

/**
 * The ops CLI when the database goes away mid-command. A PostgreSQL that goes silent (no error, no answer: a frozen
 * server, a network dropping packets) is stood in for by a TCP proxy (test/faults/tcp-proxy.ts); the shared server
 * is never touched.
 */
describe('ops CLI, database away mid-command', () => {
  it('a server gone silent mid-rebuild: one clear line and exit 1 within a bounded time, not a hang', async () => {
    const schema = testSchemaName();
    const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    const store = await createSqlEventStore(db);
    await store.appendToStream('s', [{ id: '30000000-0000-4000-8000-000000000001', type: 'test.a', version: 1, data: {} }]);
    const search = `?options=-c%20search_path%3D${schema}`;
    // The read models' tables made first, straight to the server.
    expect(
      spawnSync(process.execPath, [...CLI, 'projections', 'status'], { cwd: ROOT, env: childEnv({ DATABASE_URL: `${TEST_POSTGRES_URL}${search}` }) }).status,
    ).toBe(0);

    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(TEST_POSTGRES_URL).port || 5432) });
    const via = new URL(TEST_POSTGRES_URL);
    via.port = String(proxy.port);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holder = 0;
    // The rebuild is held mid-command on a lock of this test's (so the silence lands while it waits for an answer).
    const locking = db.transaction(async (tx) => {
      holder = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await tx.exec('LOCK TABLE projection_checkpoints IN ACCESS EXCLUSIVE MODE');
      await held;
    });
    let run: ReturnType<typeof opsWithin> | undefined;
    try {
      while (!holder) await new Promise((r) => setTimeout(r, 10));
      run = opsWithin(60_000, ['projections', 'rebuild', 'event_type_counts'], { DATABASE_URL: `${via.toString().replace(/\/?$/, '')}${search}` });
      const deadline = Date.now() + 20_000;
      for (;;) {
        const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [holder]);
        if (Number(rows[0]!.n) > 0) break;
        if (Date.now() > deadline) throw new Error('the CLI never reached the locked table');
        await new Promise((r) => setTimeout(r, 50));
      }
      proxy.silence();
      release();
      await locking;

      const r = await run.ended;
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toMatch(/^the PostgreSQL server \(DATABASE_URL\) has not answered for \d+ s: gave up/);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(r.seconds).toBeLessThan(40);
    } finally {
      release();
      await locking.catch(() => undefined);
      if (run && run.child.exitCode === null) run.child.kill('SIGKILL');
      await proxy.close();
      await store.close();
      await db.close();
    }

    // Nothing was switched or left stuck: a second run, straight to the server, rebuilds it.
    const again = spawnSync(process.execPath, [...CLI, 'projections', 'rebuild', 'event_type_counts'], {
      cwd: ROOT,
      env: childEnv({ DATABASE_URL: `${TEST_POSTGRES_URL}${search}` }),
      encoding: 'utf8',
    });
    expect(again.stderr).toBe('');
    expect(again.stdout).toMatch(/switched event_type_counts to v1 g\d+ \(from nothing\), 1 events applied/);
  }, 90_000);
});
