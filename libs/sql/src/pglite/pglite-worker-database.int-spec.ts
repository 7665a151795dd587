import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Worker } from 'node:worker_threads';
import type { SqlDatabase } from '../sql.port';
import { createPgliteWorkerDatabase } from './pglite-worker-database';

/**
 * What only the thread boundary could break (the port's own contract runs on this adapter in sql.int-spec.ts, and
 * prepared-statements.int-spec.ts has statements outside a transaction wait for it on both PGlite adapters): a
 * COMMIT's failure, values that must keep their type across structured clone, a process that an idle worker must
 * not keep alive, and a thread that dies.
 */
describe('PGlite on a worker thread', () => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await createPgliteWorkerDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('reports a failed COMMIT as the transaction’s error, and stays usable', async () => {
    await db.exec('CREATE TABLE deferred (k int, CONSTRAINT deferred_k UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO deferred VALUES (1), (1)'); // checked only at COMMIT
      }),
    ).rejects.toMatchObject({ code: '23505', constraint: 'deferred_k' });
    expect((await db.query('SELECT count(*)::int AS n FROM deferred')).rows).toEqual([{ n: 0 }]);
  });

  it('keeps dates, bytes, json and int8 as the caller’s thread would read them', async () => {
    const { rows } = await db.query<{ at: Date; b: Uint8Array; j: { x: number[] }; n: string }>(
      `SELECT '2026-12-07T10:00:00Z'::timestamptz AS at, '\\x0102ff'::bytea AS b, '{"x":[1,2]}'::jsonb AS j, 9007199254740993::int8 AS n`,
    );
    // A Date (of Node's own realm: Jest's test context has another Date, so no instanceof here)
    expect(Object.prototype.toString.call(rows[0]!.at)).toBe('[object Date]');
    expect(rows[0]!.at.toISOString()).toBe('2026-12-07T10:00:00.000Z');
    expect([...rows[0]!.b]).toEqual([1, 2, 255]);
    expect(rows[0]).toMatchObject({ j: { x: [1, 2] }, n: '9007199254740993' });
  });

  it('refuses calls once closed', async () => {
    const other = await createPgliteWorkerDatabase();
    await other.close();
    await expect(other.query('SELECT 1')).rejects.toThrow('the database is closed');
  });

  it('does not keep an idle process alive: a script that never closes it exits on its own', async () => {
    const script = `const { createPgliteWorkerDatabase } = require(${JSON.stringify(__filename.replace(/\.int-spec\.ts$/, '.ts'))});
      createPgliteWorkerDatabase().then(async (db) => console.log(JSON.stringify((await db.query('SELECT 41 + 1 AS n')).rows)));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', join(__dirname, '../../../../scripts/register.js'), '-e', script],
      { timeout: 30_000 }, // were the thread to hold it, the process would never end: killed here, and the test fails
    );
    expect(stdout.trim()).toBe('[{"n":42}]');
  });

  it('fails a call whose values cannot cross to the thread, and owes no answer for it: the idle process still exits', async () => {
    const script = `const { createPgliteWorkerDatabase } = require(${JSON.stringify(__filename.replace(/\.int-spec\.ts$/, '.ts'))});
      createPgliteWorkerDatabase().then(async (db) => {
        await db.query('SELECT $1::text', [Symbol('not cloneable')]).catch((e) => console.log(e.name));
        console.log(JSON.stringify((await db.query('SELECT 41 + 1 AS n')).rows));
      });`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', join(__dirname, '../../../../scripts/register.js'), '-e', script],
      { timeout: 30_000 }, // a request left waiting for an answer keeps the thread ref'd: killed here, and the test fails
    );
    expect(stdout.trim().split('\n')).toEqual(['DataCloneError', '[{"n":42}]']);
  });
});

describe('PGlite on a worker thread that dies', () => {
  // The adapter's own handle on its thread (private): ended here as a crash would end it.
  const threadOf = (db: SqlDatabase): Worker => (db as unknown as { worker: Worker }).worker;

  it.each([
    ['is ended (process.exit in it, its heap out of memory, terminate)', (w: Worker) => void w.terminate(), /^the PGlite worker thread exited \(code 1\)$/],
    ['throws (a message its handler cannot read)', (w: Worker) => w.postMessage(null), /^the PGlite worker thread failed: Cannot read properties of null/],
  ])('%s: what waits, what comes later and an open transaction fail at once, and listeners hear their LISTEN lost', async (_, kill, why) => {
    const db = await createPgliteWorkerDatabase();
    const connection: boolean[] = [];
    const unlisten = await db.listen(
      'changes',
      () => undefined,
      (connected) => connection.push(connected),
    );
    let opened!: () => void;
    let finish!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      opened();
      await finished;
      await tx.query('SELECT 2');
    });
    transaction.catch(() => undefined); // awaited below
    await open;
    expect(db.failed?.()).toBeNull();

    kill(threadOf(db));
    const started = Date.now();
    await expect(db.query('SELECT pg_sleep(5)')).rejects.toThrow(why); // in flight as the thread died
    expect(Date.now() - started).toBeLessThan(2000);
    finish();
    await expect(transaction).rejects.toThrow(why);
    await expect(db.query('SELECT 1')).rejects.toThrow(why);
    expect(connection).toEqual([false]);
    expect(db.failed?.()?.message).toMatch(why); // what /health reports (libs/runtime dependencies.ts), no query needed
    await expect(unlisten()).resolves.toBeUndefined();
    await expect(db.close()).resolves.toBeUndefined();
  });
});
