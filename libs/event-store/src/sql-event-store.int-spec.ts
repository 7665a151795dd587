import { randomUUID } from 'node:crypto';
import { testDatabases } from '../../sql/src/testing/test-databases';
import { WrongExpectedVersionError } from './errors';
import { eventStoreContract } from './event-store.contract';
import { isAfter } from './position';
import { createSqlEventStore } from './sql/sql-event-store';
import { migrateEventStore } from './sql/migrations';

describe.each(testDatabases({ pgliteWorker: true }))('SQL event store on $name', (factory) => {
  eventStoreContract(async () => {
    const db = await factory.create();
    return {
      open: (options) => createSqlEventStore(db, options),
      dispose: () => db.close(),
    };
  });

  describe('stream heads known by more than one process', () => {
    const event = (n: number) => ({ id: randomUUID(), type: 'PoolTouched', version: 1, data: { n } });
    const revisions = async (store: { readStream(s: string): Promise<{ revision: number; data: unknown }[]> }, stream: string) =>
      (await store.readStream(stream)).map((e) => [e.revision, (e.data as { n: number }).n]);

    it('an append on a head another store moved past lands after it, and an expected version is checked against the stored head', async () => {
      const db = await factory.create();
      const [a, b] = [await createSqlEventStore(db), await createSqlEventStore(db)];
      try {
        const stream = `pool-${randomUUID()}`;
        expect(await a.appendToStream(stream, [event(0), event(1)])).toEqual({ nextExpectedVersion: 1, appended: 2 });
        expect(await b.appendToStream(stream, [event(2)])).toEqual({ nextExpectedVersion: 2, appended: 1 });
        // a last saw revision 1: its head is behind, and the append still lands at 3, after b's.
        expect(await a.appendToStream(stream, [event(3)], 'any')).toEqual({ nextExpectedVersion: 3, appended: 1 });
        // b last saw 2; expecting 3 (which it learned elsewhere) is right against the stored head, so it succeeds…
        expect(await b.appendToStream(stream, [event(4)], 3)).toEqual({ nextExpectedVersion: 4, appended: 1 });
        // …and a, whose head (3) is behind, expecting that stale 3 is refused with the stored head as actual.
        const refused = await a.appendToStream(stream, [event(5)], 3).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(WrongExpectedVersionError);
        expect((refused as WrongExpectedVersionError).actual).toBe(4);
        expect(await a.appendToStream(stream, [event(5)], 'any')).toEqual({ nextExpectedVersion: 5, appended: 1 });
        // An empty append writes nothing that could show a head to be behind, so b's (4) is not trusted for it.
        expect(await b.appendToStream(stream, [], 4).catch((e: WrongExpectedVersionError) => e.actual)).toBe(5);
        expect(await b.appendToStream(stream, [], 5)).toEqual({ nextExpectedVersion: 5, appended: 0 });
        expect(await revisions(a, stream)).toEqual([0, 1, 2, 3, 4, 5].map((r) => [r, r]));
      } finally {
        await Promise.all([a.close(), b.close()]);
        await db.close();
      }
    });

    it('a numbered batch (client_revisions) is inserted as numbered, and a stale head or a stored id refuses it whole', async () => {
      const db = await factory.create();
      const store = await createSqlEventStore(db);
      try {
        const [a, b] = [`pool-${randomUUID()}`, `pool-${randomUUID()}`];
        await store.appendMany([
          { streamId: a, events: [event(0)] },
          { streamId: b, events: [event(0), event(1)] },
        ]);
        const numbered = (rows: [string, number][], ids = rows.map(() => randomUUID())) =>
          JSON.stringify({
            streams: [...new Set(rows.map(([s]) => s))].map((stream_id) => ({ stream_id })),
            events: rows.map(([s, r], k) => ({ s, r, id: ids[k], type: 'PoolTouched', version: 1, data: { n: r }, metadata: {} })),
            client_revisions: true,
          });
        const append = (json: string) => db.query('SELECT * FROM es_append($1::jsonb)', [json]);
        expect(
          (
            await append(
              numbered([
                [a, 1],
                [b, 2],
                [a, 2],
              ]),
            )
          ).rows,
        ).toEqual([]); // the client knows the results
        expect(await revisions(store, a)).toEqual([
          [0, 0],
          [1, 1],
          [2, 2],
        ]);
        // b's head is 2: a batch numbered from 1 (a head behind) collides, and nothing of it stays — a's event neither.
        await expect(
          append(
            numbered([
              [a, 3],
              [b, 2],
            ]),
          ),
        ).rejects.toMatchObject({ code: '23505' });
        const stored = randomUUID();
        await append(numbered([[a, 3]], [stored]));
        await expect(append(numbered([[b, 3]], [stored]))).rejects.toMatchObject({ code: '23505' });
        expect(await revisions(store, a)).toEqual([0, 1, 2, 3].map((r) => [r, r]));
        expect((await store.readStream(b)).length).toBe(3);
      } finally {
        await store.close();
        await db.close();
      }
    });

    it('es_events refuses UPDATE, DELETE and TRUNCATE (heads rely on events staying as written)', async () => {
      const db = await factory.create();
      const store = await createSqlEventStore(db);
      try {
        await store.appendToStream(`pool-${randomUUID()}`, [event(0)]);
        for (const sql of ['UPDATE es_events SET type = type', 'DELETE FROM es_events', 'TRUNCATE es_events']) {
          await expect(db.exec(sql)).rejects.toThrow(/append-only/);
        }
        expect((await store.stats()).events).toBe(1);
      } finally {
        await store.close();
        await db.close();
      }
    });
  });

  it('a filtered read goes straight to its matches past the skipped events, every match read once, and ends at the head', async () => {
    const db = await factory.create();
    const store = await createSqlEventStore(db);
    try {
      const from = await store.headPosition();
      const wanted = (n: number) => ({ id: randomUUID(), type: 'Wanted', version: 1, data: { n } });
      const other = (n: number) => ({ id: randomUUID(), type: 'Other', version: 1, data: { n } });
      const skipped = 2500;
      const ids: string[] = [];
      for (let part = 0; part < 3; part++) {
        const w = wanted(part);
        ids.push(w.id);
        await store.appendToStream(`mixed-${part}`, [w, ...Array.from({ length: part < 2 ? skipped : 0 }, (_, i) => other(i))]);
      }
      const pages = [];
      let after = from;
      for (;;) {
        const page = await store.readAll({ after, maxCount: 2, types: ['Wanted'] });
        pages.push(page);
        expect(isAfter(page.last, after)).toBe(true);
        after = page.last;
        if (!page.hasMore) break;
      }
      expect(pages.flatMap((p) => p.events.map((e) => e.id))).toEqual(ids);
      // 2 × 2,500 skipped events behind 3 matches, pages of 2: the first cut at its second match, the second ends
      // at the head — no page of skipped events only.
      expect(pages.map((p) => p.events.length)).toEqual([2, 1]);
      expect(pages.at(-1)!.last).toEqual(await store.headPosition());
    } finally {
      await store.close();
      await db.close();
    }
  });

  it('stats count each appended event once, calls side by side with appends included, and agree with a fresh count', async () => {
    const db = await factory.create();
    const [counting, fresh] = [await createSqlEventStore(db), await createSqlEventStore(db)];
    try {
      const type = `Counted${randomUUID().slice(0, 8)}`;
      const event = () => ({ id: randomUUID(), type, version: 1, data: {} });
      const before = await counting.stats();
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 10; i++) {
        calls.push(counting.stats());
        await counting.appendMany([
          { streamId: `counted-${randomUUID()}`, events: [event(), event()] },
          { streamId: `counted-${randomUUID()}`, events: [event()] },
        ]);
        calls.push(counting.stats());
      }
      await Promise.all(calls);
      const [after, recounted] = [await counting.stats(), await fresh.stats()];
      expect(after.byType[type]).toBe(30);
      expect(after.events - before.events).toBe(30);
      expect(after.streams - before.streams).toBe(20);
      expect(after).toEqual(recounted);
      expect(after.last).toEqual(await counting.headPosition());
    } finally {
      await Promise.all([counting.close(), fresh.close()]);
      await db.close();
    }
  });

  it('migrates once and is idempotent on restart', async () => {
    const db = await factory.create();
    try {
      expect(await migrateEventStore(db)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await migrateEventStore(db)).toEqual([]);
      const store = await createSqlEventStore(db);
      await store.close();
      const { rows } = await db.query<{ version: number }>('SELECT version FROM es_schema_migrations');
      expect(rows.map((r) => Number(r.version)).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await db.close();
    }
  });
});
