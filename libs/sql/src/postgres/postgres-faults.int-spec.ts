import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { expectUnavailableWithin } from '../../../../test/faults/expect-unavailable';
import { TcpProxy } from '../../../../test/faults/tcp-proxy';
import { createPostgresDatabase } from './postgres-database';
import { LISTEN_HEARTBEAT_MS } from './postgres-listener';
import { TEST_POSTGRES_URL, testSchemaName } from '../testing/test-databases';
import type { SqlDatabase } from '../sql.port';

/**
 * PostgreSQL going away, as the adapter meets it (issue 31): a refused or silent server, a session ended under a
 * statement, and a killed or silent LISTEN connection. The shared server is never stopped — a closed port, a server
 * that accepts and never answers, pg_terminate_backend of this test's own sessions and a TCP proxy gone silent
 * (test/faults/tcp-proxy.ts) stand in for it.
 */
const schema = () => testSchemaName();

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('PostgreSQL away', () => {
  it('a refused connection is SERVICE_UNAVAILABLE (503, Retry-After) at once, for queries and transactions', async () => {
    const closed = createServer();
    const port = await listening(closed);
    await new Promise((r) => closed.close(r)); // nothing listens there now
    const db = await createPostgresDatabase({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` });
    try {
      await expectUnavailableWithin(2000, 'postgresql', () => db.query('SELECT 1'));
      await expectUnavailableWithin(2000, 'postgresql', () => db.transaction((tx) => tx.query('SELECT 1')));
      await expectUnavailableWithin(2000, 'postgresql', () => db.listen('anything', () => undefined));
    } finally {
      await db.close();
    }
  });

  it('a server that accepts and never answers is SERVICE_UNAVAILABLE within 2 s, not a hang', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    const port = await listening(silent);
    const db = await createPostgresDatabase({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` });
    try {
      await expectUnavailableWithin(2000, 'postgresql', () => db.query('SELECT 1'));
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
      await db.close();
    }
  });

  it("a statement the server refuses is the caller's error, unchanged", async () => {
    const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: schema() });
    try {
      await expect(db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '42P01' });
    } finally {
      await db.close();
    }
  });
});

describe('a session the server ends under a statement (a restart, pg_terminate_backend)', () => {
  let db: SqlDatabase;
  let admin: SqlDatabase;
  beforeAll(async () => {
    // One connection, so the next caller gets whatever the pool kept of the ended session.
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: schema(), maxConnections: 1 });
    admin = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, maxConnections: 1 });
    // Every row written waits 30 s: the statement (or COPY) is still running when its session is ended.
    await db.exec(`CREATE TABLE slow (a int);
      CREATE FUNCTION slow_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
      CREATE TRIGGER slow_row BEFORE INSERT ON slow FOR EACH ROW EXECUTE FUNCTION slow_row();`);
  });
  afterAll(async () => {
    await db.close();
    await admin.close();
  });

  it.each([
    ['a statement', () => db.query('INSERT INTO slow VALUES (1)')],
    ['a COPY', () => db.copyIn('slow', ['a'], '1\n')],
  ])('%s: that caller gets the 503, and the next one a working connection, not the dead one', async (_, write) => {
    const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'); // the pool's one session
    const written = write().then(
      () => undefined,
      (e: unknown) => e,
    );
    let sleeping = false;
    for (const deadline = Date.now() + 5000; !sleeping && Date.now() < deadline;) {
      const activity = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'PgSleep'`, [rows[0]!.pid]);
      sleeping = activity.rowCount > 0;
    }
    expect(sleeping).toBe(true);
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    expect(await written).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { dependency: 'postgresql' } });

    // Before: the ended session went back to the pool, and this failed with "Connection terminated unexpectedly".
    expect((await db.query('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
  });
});

describe('LISTEN after its connection is lost', () => {
  let db: SqlDatabase;
  let admin: SqlDatabase;
  beforeAll(async () => {
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: schema() });
    admin = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, maxConnections: 1 });
  });
  afterAll(async () => {
    await db.close();
    await admin.close();
  });

  it('is re-established with LISTEN issued again, saying lost then connected, and hears notifications again', async () => {
    // A channel of this test alone, so terminating its session touches nobody else's.
    const channel = `faults_${randomBytes(6).toString('hex')}`;
    const heard: string[] = [];
    const connection: boolean[] = [];
    const unlisten = await db.listen(
      channel,
      (p) => heard.push(p),
      (c) => connection.push(c),
    );
    try {
      await db.query(`SELECT pg_notify($1, 'before')`, [channel]);
      await until('the first notification', () => heard.includes('before'));

      const { rows } = await admin.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
        [`LISTEN ${channel}`],
      );
      expect(rows).toEqual([{ ok: true }]);
      await until('lost, then connected again', () => connection.length >= 2);
      expect(connection).toEqual([false, true]);

      await db.query(`SELECT pg_notify($1, 'after')`, [channel]);
      await until('a notification after the reconnect', () => heard.includes('after'));
    } finally {
      await unlisten();
    }
  });

  it('is found lost when its server goes silent (frozen, packets dropped), is re-established once it answers, and unlisten does not wait on it', async () => {
    const server = new URL(TEST_POSTGRES_URL);
    const proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port || 5432) });
    const proxied = Object.assign(new URL(TEST_POSTGRES_URL), { hostname: '127.0.0.1', port: String(proxy.port) });
    const viaProxy = await createPostgresDatabase({ connectionString: proxied.href, schema: schema() });
    const channel = `faults_${randomBytes(6).toString('hex')}`;
    const heard: string[] = [];
    const connection: boolean[] = [];
    let unlisten: (() => Promise<void>) | undefined = await viaProxy.listen(
      channel,
      (p) => heard.push(p),
      (c) => connection.push(c),
    );
    try {
      proxy.silence(); // no error, no end: only no answer
      // Before: never — the connection waited on the silence for good, and every NOTIFY meanwhile was missed unsaid.
      await until('the silent LISTEN connection found lost', () => connection.length >= 1, LISTEN_HEARTBEAT_MS.every + LISTEN_HEARTBEAT_MS.timeout + 2000);
      expect(connection).toEqual([false]);

      await proxy.restore();
      await until('LISTEN active again', () => connection.length >= 2);
      expect(connection).toEqual([false, true]);
      await db.query(`SELECT pg_notify($1, 'after')`, [channel]);
      await until('a notification after the silence', () => heard.includes('after'));

      proxy.silence();
      const stopping = Date.now();
      const stop = unlisten;
      unlisten = undefined;
      await stop(); // before: end() waited for the silent server to close its side, forever
      expect(Date.now() - stopping).toBeLessThan(LISTEN_HEARTBEAT_MS.timeout + 1000);
    } finally {
      await proxy.close(); // every connection dropped first: a failed check must not leave unlisten waiting on silence
      await unlisten?.();
      await viaProxy.close();
    }
  });
});
