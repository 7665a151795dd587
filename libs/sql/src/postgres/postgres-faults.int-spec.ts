import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { expectUnavailableWithin } from '../../../../test/faults/expect-unavailable';
import { createPostgresDatabase } from './postgres-database';
import { TEST_POSTGRES_URL, testSchemaName } from '../testing/test-databases';
import type { SqlDatabase } from '../sql.port';

/**
 * PostgreSQL going away, as the adapter meets it (issue 31): a refused or silent server and a killed LISTEN
 * connection. The shared server is never stopped — a closed port, a server that accepts and never answers, and
 * pg_terminate_backend of this test's own LISTEN session stand in for it.
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
});
