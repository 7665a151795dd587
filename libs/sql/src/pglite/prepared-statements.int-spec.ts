import { createPgliteDatabase, newEmbeddedPglite } from './pglite-database';
import { createPgliteWorkerDatabase } from './pglite-worker-database';
import { PglitePreparedStatements } from './prepared-statements';
import type { SqlDatabase } from '../sql.port';

/** Two tables of different columns and a view on the first: a read model's view before a switch re-points it. */
const VIEW_ON_A = `CREATE TABLE a (v int); INSERT INTO a VALUES (1); CREATE TABLE b (v int, w text); INSERT INTO b VALUES (2, 'x');
  CREATE VIEW rm_v AS SELECT * FROM a;`;
const REPOINT_TO_B = 'DROP VIEW rm_v; CREATE VIEW rm_v AS SELECT * FROM b;';

/** Runs a case on a database of its own, closed whatever the case does. */
async function onDatabase(open: () => Promise<SqlDatabase>, use: (db: SqlDatabase) => Promise<void>): Promise<void> {
  const db = await open();
  try {
    await use(db);
  } finally {
    await db.close();
  }
}

describe('PGlite reads and parameterised statements as named prepared statements', () => {
  it('answers like query(): rows, types, parameters, nulls, errors with their code and statement', () =>
    onDatabase(createPgliteDatabase, async (db) => {
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
    }));

  it('follows a view re-pointed to another table, also when its columns change', () =>
    onDatabase(createPgliteDatabase, async (db) => {
      await db.exec(VIEW_ON_A);
      expect((await db.query('SELECT * FROM rm_v')).rows).toEqual([{ v: 1 }]);
      expect((await db.query('SELECT v FROM rm_v')).rows).toEqual([{ v: 1 }]);
      await db.exec(REPOINT_TO_B);
      expect((await db.query('SELECT v FROM rm_v')).rows).toEqual([{ v: 2 }]);
      expect((await db.query('SELECT * FROM rm_v')).rows).toEqual([{ v: 2, w: 'x' }]); // result type changed: prepared again
    }));

  // On its one connection, in process and across the worker thread's messages alike.
  it.each([
    ['in process', createPgliteDatabase],
    ['on a worker thread', createPgliteWorkerDatabase],
  ])('waits for an open transaction instead of running inside it (%s)', (_where, open) =>
    onDatabase(open, async (db) => {
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
    }),
  );

  it.each([
    ['in process', createPgliteDatabase],
    ['on a worker thread', createPgliteWorkerDatabase],
  ])("runs a transaction's statements with parameters inside it: its writes seen, rolled back with it (%s)", (_where, open) =>
    onDatabase(open, async (db) => {
      await db.exec('CREATE TABLE t (id int PRIMARY KEY, doc jsonb)');
      const big = { rows: Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `é-${i}-🚀` })) };
      const failed = await db
        .transaction(async (tx) => {
          const inserted = await tx.query('INSERT INTO t SELECT (x->>$2)::int, x FROM jsonb_array_elements($1::jsonb->$3) x', [
            JSON.stringify(big),
            'id',
            'rows',
          ]);
          expect(inserted.rowCount).toBe(2_000);
          expect((await tx.query('SELECT doc->>$1 AS name FROM t WHERE id = $2', ['name', 1_999])).rows).toEqual([{ name: 'é-1999-🚀' }]);
          throw new Error('roll it back');
        })
        .catch((e: Error) => e.message);
      expect(failed).toBe('roll it back');
      expect((await db.query('SELECT COUNT(*)::int AS n FROM t WHERE id >= $1', [0])).rows).toEqual([{ n: 0 }]);
      // A statement first prepared inside the rolled-back transaction is still there for the next caller.
      expect((await db.query('SELECT doc->>$1 AS name FROM t WHERE id = $2', ['name', 1_999])).rows).toEqual([]);
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES ($1, $2)', [1, JSON.stringify({ ok: true })]);
      });
      expect((await db.query('SELECT doc FROM t WHERE id = $1', [1])).rows).toEqual([{ doc: { ok: true } }]);
    }),
  );

  it('closes a statement refused as changed inside a transaction, so the next transaction prepares it anew', () =>
    onDatabase(createPgliteDatabase, async (db) => {
      await db.exec(VIEW_ON_A);
      const read = (tx: { query: typeof db.query }) => tx.query('SELECT * FROM rm_v WHERE v >= $1', [0]);
      expect((await db.transaction(read)).rows).toEqual([{ v: 1 }]);
      await db.exec(REPOINT_TO_B);
      const refused = (await db.transaction(read).catch((e: unknown) => e)) as { code?: string };
      expect(refused.code).toBe('0A000'); // cached plan must not change result type: the transaction is aborted
      expect((await db.transaction(read)).rows).toEqual([{ v: 2, w: 'x' }]);
      expect((await db.query('SELECT * FROM rm_v WHERE v >= $1', [0])).rows).toEqual([{ v: 2, w: 'x' }]);
    }));

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
