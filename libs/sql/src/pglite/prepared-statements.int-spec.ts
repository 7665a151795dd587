import { createPgliteDatabase, newEmbeddedPglite } from './pglite-database';
import { createPgliteWorkerDatabase } from './pglite-worker-database';
import { PglitePreparedStatements } from './prepared-statements';

describe('PGlite reads as named prepared statements', () => {
  it('answers like query(): rows, types, parameters, nulls, errors with their code and statement', async () => {
    const db = await createPgliteDatabase();
    try {
      await db.exec(`CREATE TABLE t (id int PRIMARY KEY, n int8, amount numeric, at timestamptz, j jsonb);
        INSERT INTO t VALUES (1, 9007199254740993, 12.5, '2026-01-02T03:04:05Z', '{"a":[1]}'), (2, NULL, 0, NULL, NULL);`);
      for (let i = 0; i < 7; i++) {
        // Past the fifth execution PostgreSQL may switch to the generic plan: answers must not change.
        const { rows } = await db.query('SELECT id, n, amount::text AS amount, at, j FROM t WHERE id = $1 AND $2::int IS NULL ORDER BY id', [1, null]);
        expect(rows).toEqual([{ id: 1, n: '9007199254740993', amount: '12.5', at: new Date('2026-01-02T03:04:05Z'), j: { a: [1] } }]);
      }
      expect((await db.query('SELECT id FROM t WHERE id = ANY($1::int[]) ORDER BY id', [[1, 2]])).rows).toEqual([{ id: 1 }, { id: 2 }]);
      const err = (await db.query('SELECT 1 / $1::int AS x', [0]).catch((e: unknown) => e)) as { code: string; query: string };
      expect(err.code).toBe('22012');
      expect(err.query).toBe('SELECT 1 / $1::int AS x');
      expect((await db.query('SELECT 2 AS ok')).rows).toEqual([{ ok: 2 }]); // the connection is usable after an error
    } finally {
      await db.close();
    }
  });

  it('follows a view re-pointed to another table, also when its columns change', async () => {
    const db = await createPgliteDatabase();
    try {
      await db.exec(`CREATE TABLE a (v int); INSERT INTO a VALUES (1); CREATE TABLE b (v int, w text); INSERT INTO b VALUES (2, 'x');
        CREATE VIEW rm_v AS SELECT * FROM a;`);
      expect((await db.query('SELECT * FROM rm_v')).rows).toEqual([{ v: 1 }]);
      expect((await db.query('SELECT v FROM rm_v')).rows).toEqual([{ v: 1 }]);
      await db.exec('DROP VIEW rm_v; CREATE VIEW rm_v AS SELECT * FROM b;');
      expect((await db.query('SELECT v FROM rm_v')).rows).toEqual([{ v: 2 }]);
      expect((await db.query('SELECT * FROM rm_v')).rows).toEqual([{ v: 2, w: 'x' }]); // result type changed: prepared again
    } finally {
      await db.close();
    }
  });

  // On its one connection, in process and across the worker thread's messages alike.
  it.each([
    ['in process', createPgliteDatabase],
    ['on a worker thread', createPgliteWorkerDatabase],
  ])('waits for an open transaction instead of running inside it (%s)', async (_where, open) => {
    const db = await open();
    try {
      await db.exec('CREATE TABLE t (v int)');
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const tx = db.transaction(async (t) => {
        await t.query('INSERT INTO t VALUES (1)');
        await held;
        await t.query('INSERT INTO t VALUES (2)');
      });
      await new Promise((r) => setTimeout(r, 20));
      const read = db.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM t');
      release();
      await tx;
      expect((await read).rows).toEqual([{ n: 2 }]);
    } finally {
      await db.close();
    }
  });

  it('keeps at most `capacity` statements, closing the least recently used', async () => {
    // A bare PGlite with the embedded settings, from the cluster image: initdb here cost about 10 s of CPU.
    const pg = await newEmbeddedPglite();
    try {
      const prepared = new PglitePreparedStatements(pg, 3);
      for (let i = 0; i < 10; i++) expect((await prepared.query(`SELECT ${i} AS i`)).rows).toEqual([{ i }]);
      const { rows } = await pg.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM pg_prepared_statements');
      expect(rows[0]!.n).toBe(3);
      expect((await prepared.query('SELECT 9 AS i')).rows).toEqual([{ i: 9 }]);
    } finally {
      await pg.close();
    }
  });
});
