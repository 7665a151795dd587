import { copyText } from './copy-text';
import { testDatabases } from './testing/test-databases';

describe.each(testDatabases({ pgliteWorker: true }))('SqlDatabase on $name', (factory) => {
  it('round-trips int8 as a string and jsonb as an object', async () => {
    const db = await factory.create();
    try {
      const { rows } = await db.query<{ a: string; j: { x: number } }>(`SELECT 9007199254740993::int8 AS a, '{"x":1}'::jsonb AS j`);
      expect(rows[0]).toEqual({ a: '9007199254740993', j: { x: 1 } });
    } finally {
      await db.close();
    }
  });

  it('rolls a transaction back when its function throws', async () => {
    const db = await factory.create();
    try {
      await db.exec('CREATE TABLE t (v int)');
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO t VALUES (1)');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES (2)');
      });
      const { rows } = await db.query<{ v: number }>('SELECT v FROM t');
      expect(rows).toEqual([{ v: 2 }]);
    } finally {
      await db.close();
    }
  });

  it('keeps a session in service after the server refuses a statement (the connection is not replaced)', async () => {
    const db = await factory.create();
    try {
      const backend = async () => (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const before = await backend();
      await expect(db.query('SELECT 1 / 0')).rejects.toMatchObject({ code: '22012' });
      await expect(db.exec('SELECT no_such_column')).rejects.toMatchObject({ code: '42703' });
      await expect(db.transaction((tx) => tx.query('SELECT 1 / 0'))).rejects.toMatchObject({ code: '22012' });
      expect(await backend()).toBe(before);
    } finally {
      await db.close();
    }
  });

  it('loads rows by COPY, in a transaction or not: every value as the column reads it, a duplicate key refused whole', async () => {
    const db = await factory.create();
    try {
      await db.exec('CREATE TABLE c (k text PRIMARY KEY, n int, amount numeric, ok boolean, at timestamptz, note text)');
      const awkward = 'tab\there, line\nbreak, cr\r, back\\slash \\N';
      await db.transaction((tx) =>
        tx.copyIn(
          'c',
          ['k', 'n', 'amount', 'ok', 'at', 'note'],
          copyText([
            ['a', 1, 123456789012345678901234567890n, true, '2026-12-01T19:00:00.123Z', awkward],
            ['b', null, 0n, false, '2026-01-02T03:04:05.000Z', null],
          ]),
        ),
      );
      await db.copyIn('c', ['k', 'note'], copyText([['c', '']]));
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT k, n, amount::text AS amount, ok, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS at, note FROM c ORDER BY k`,
      );
      expect(rows).toEqual([
        { k: 'a', n: 1, amount: '123456789012345678901234567890', ok: true, at: '2026-12-01T19:00:00.123', note: awkward },
        { k: 'b', n: null, amount: '0', ok: false, at: '2026-01-02T03:04:05.000', note: null },
        { k: 'c', n: null, amount: null, ok: null, at: null, note: '' },
      ]);
      await expect(db.transaction((tx) => tx.copyIn('c', ['k'], copyText([['d'], ['a']])))).rejects.toMatchObject({ code: '23505' });
      expect((await db.query('SELECT k FROM c')).rows).toHaveLength(3);
      await expect(db.copyIn('c; DROP TABLE c', ['k'], '')).rejects.toThrow('not a safe SQL identifier');
    } finally {
      await db.close();
    }
  });

  it('delivers NOTIFY to a listener', async () => {
    const db = await factory.create();
    try {
      let resolve!: (payload: string) => void;
      const got = new Promise<string>((r) => (resolve = r));
      const unlisten = await db.listen('test_channel', resolve);
      await db.query(`SELECT pg_notify('test_channel', 'hello')`);
      await expect(got).resolves.toBe('hello');
      await unlisten();
    } finally {
      await db.close();
    }
  });
});
