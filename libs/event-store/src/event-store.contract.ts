import { randomUUID } from 'node:crypto';
import { EventCatalog } from '@dob/domain';
import { z } from 'zod';
import { InvalidEventError, WrongExpectedVersionError } from './errors';
import type { EventStore, GlobalPosition, NewEvent, ReadAllPage, RecordedEvent } from './event-store.port';
import { START } from './event-store.port';
import { comparePositions, isAfter, positionFromString, positionToString } from './position';

/**
 * What a contract run needs from an adapter: stores opened over ONE shared storage (so a store with another
 * catalog can read what the first wrote — that is how upcasting is tested), and a way to drop it all.
 */
export interface EventStoreBackend {
  open(options?: { catalog?: EventCatalog }): Promise<EventStore>;
  dispose(): Promise<void>;
}

/**
 * Guarantees beyond the port that an adapter may not give; the tests that check them are skipped for it, and
 * their names say why. The SQL adapters give both.
 */
export interface EventStoreCapabilities {
  /** One event id is stored once across all streams, even when two streams race to append it. */
  readonly uniqueIdsAcrossStreams: string | true;
  /** The events of one appendMany share one commit position (one transaction id). */
  readonly batchSharesCommitPosition: string | true;
}

const ALL_CAPABILITIES: EventStoreCapabilities = { uniqueIdsAcrossStreams: true, batchSharesCommitPosition: true };

/** `it` when the adapter has the capability; otherwise a visible skip whose name carries the reason. */
function itIf(capability: string | true): (name: string, fn: () => Promise<void>) => void {
  return capability === true ? it : (name, fn) => it.skip(`${name} — not on this adapter: ${capability}`, fn);
}

/**
 * The EventStore contract, adapter-neutral: it only speaks the port, so the SQL adapters and a future EventStoreDB
 * adapter run the same suite. Tests share one backend and keep apart by unique stream ids and event types;
 * reads of $all start at the head taken at the start of the test.
 */
export function eventStoreContract(createBackend: () => Promise<EventStoreBackend>, capabilities: EventStoreCapabilities = ALL_CAPABILITIES): void {
  let backend: EventStoreBackend;
  let store: EventStore;

  beforeAll(async () => {
    backend = await createBackend();
    store = await backend.open();
  });
  afterAll(async () => {
    await store?.close();
    await backend?.dispose();
  });

  /** A per-test namespace: unique stream ids and event types. */
  const scope = () => {
    const tag = randomUUID().slice(0, 8);
    return {
      stream: (name: string) => `${name}-${tag}`,
      type: (name: string) => `${name}_${tag}`,
      event: (type: string, data: unknown = {}, metadata?: Record<string, unknown>): NewEvent => ({
        id: randomUUID(),
        type,
        version: 1,
        data,
        metadata,
      }),
    };
  };

  /** Every event of $all after `from`, read in pages. */
  const readAllFrom = async (s: EventStore, from: GlobalPosition, maxCount = 1000, types?: string[]): Promise<ReadAllPage[]> => {
    const pages: ReadAllPage[] = [];
    let after = from;
    for (;;) {
      const page = await s.readAll({ after, maxCount, types });
      pages.push(page);
      after = page.last;
      if (!page.hasMore) return pages;
    }
  };
  const eventsOf = (pages: ReadAllPage[]): RecordedEvent[] => pages.flatMap((p) => p.events);

  describe('appendToStream and readStream', () => {
    it('numbers revisions from 0 and reads the stream back as written', async () => {
      const t = scope();
      const stream = t.stream('pool');
      const written = [
        t.event(t.type('PoolOpened'), { name: 'Solar', amount: '1000000000000000000001' }, { ledger: 7 }),
        t.event(t.type('Deposited'), { amount: '5' }),
        t.event(t.type('Deposited'), { amount: '6' }),
      ];
      const appendedAt = Date.now();
      const r = await store.appendToStream(stream, written, 'no_stream');
      expect(r).toEqual({ nextExpectedVersion: 2, appended: 3 });

      const read = await store.readStream(stream);
      expect(read.map((e) => [e.id, e.revision, e.type, e.version, e.streamId])).toEqual(written.map((e, i) => [e.id, i, e.type, 1, stream]));
      expect(read[0]!.data).toEqual({ name: 'Solar', amount: '1000000000000000000001' });
      expect(read[0]!.metadata).toEqual({ ledger: 7 });
      expect(read[1]!.metadata).toEqual({});
      expect(read[0]!.recordedAt).toBeInstanceOf(Date);
      expect(Number.isNaN(read[0]!.recordedAt.getTime())).toBe(false);
      // The server's clock, in milliseconds (a unit slip would land in 1970 or far ahead): within a minute of ours.
      expect(Math.abs(read[0]!.recordedAt.getTime() - appendedAt)).toBeLessThan(60_000);
      expect(comparePositions(read[0]!.position, read[1]!.position)).toBe(-1);
      expect(comparePositions(read[1]!.position, read[2]!.position)).toBe(-1);

      const more = await store.appendToStream(stream, [t.event(t.type('Deposited'))], 2);
      expect(more).toEqual({ nextExpectedVersion: 3, appended: 1 });
    });

    it('reads a window of a stream and nothing for an unknown stream', async () => {
      const t = scope();
      const stream = t.stream('round');
      await store.appendToStream(
        stream,
        Array.from({ length: 6 }, (_, i) => t.event(t.type('RoundClosed'), { i })),
      );
      expect((await store.readStream(stream, { fromRevision: 2, maxCount: 3 })).map((e) => e.revision)).toEqual([2, 3, 4]);
      expect((await store.readStream(stream, { fromRevision: 5 })).map((e) => e.data)).toEqual([{ i: 5 }]);
      expect(await store.readStream(stream, { fromRevision: 6 })).toEqual([]);
      expect(await store.readStream(t.stream('never-written'))).toEqual([]);
    });

    it('reads backwards from the end or from a revision, so the last event costs one read', async () => {
      const t = scope();
      const stream = t.stream('cursor');
      await store.appendToStream(
        stream,
        Array.from({ length: 5 }, (_, i) => t.event(t.type('CursorMoved'), { i })),
      );
      expect((await store.readStream(stream, { direction: 'backwards', maxCount: 1 })).map((e) => [e.revision, e.data])).toEqual([[4, { i: 4 }]]);
      expect((await store.readStream(stream, { direction: 'backwards' })).map((e) => e.revision)).toEqual([4, 3, 2, 1, 0]);
      expect((await store.readStream(stream, { direction: 'backwards', fromRevision: 2, maxCount: 2 })).map((e) => e.revision)).toEqual([2, 1]);
      expect((await store.readStream(stream, { direction: 'forwards', fromRevision: 3 })).map((e) => e.revision)).toEqual([3, 4]);
      expect(await store.readStream(t.stream('never-written'), { direction: 'backwards', maxCount: 1 })).toEqual([]);
    });
  });

  describe('expected versions', () => {
    it('enforces no_stream, stream_exists and exact revisions, writing nothing on conflict', async () => {
      const t = scope();
      const stream = t.stream('listing');
      const type = t.type('ListingCreated');

      await expect(store.appendToStream(stream, [t.event(type)], 'stream_exists')).rejects.toMatchObject({
        name: 'WrongExpectedVersionError',
        streamId: stream,
        actual: -1,
      });
      await expect(store.appendToStream(stream, [t.event(type)], 0)).rejects.toBeInstanceOf(WrongExpectedVersionError);
      expect(await store.readStream(stream)).toEqual([]);

      await store.appendToStream(stream, [t.event(type), t.event(type)], 'no_stream');
      const conflict = await store.appendToStream(stream, [t.event(type)], 'no_stream').catch((e: unknown) => e);
      expect(conflict).toBeInstanceOf(WrongExpectedVersionError);
      expect(conflict).toMatchObject({ streamId: stream, expected: 'no_stream', actual: 1 });
      await expect(store.appendToStream(stream, [t.event(type)], 0)).rejects.toMatchObject({ actual: 1 });
      await expect(store.appendToStream(stream, [t.event(type)], 5)).rejects.toMatchObject({ actual: 1 });
      expect(await store.readStream(stream)).toHaveLength(2);

      expect(await store.appendToStream(stream, [t.event(type)], 1)).toEqual({ nextExpectedVersion: 2, appended: 1 });
      expect(await store.appendToStream(stream, [t.event(type)], 'stream_exists')).toEqual({ nextExpectedVersion: 3, appended: 1 });
      expect(await store.appendToStream(stream, [t.event(type)], 'any')).toEqual({ nextExpectedVersion: 4, appended: 1 });
      expect(await store.appendToStream(stream, [t.event(type)])).toEqual({ nextExpectedVersion: 5, appended: 1 });
    });

    it('an empty append checks the expected version and reports the current one', async () => {
      const t = scope();
      const stream = t.stream('campaign');
      expect(await store.appendToStream(stream, [], 'no_stream')).toEqual({ nextExpectedVersion: -1, appended: 0 });
      await store.appendToStream(stream, [t.event(t.type('CampaignStarted'))]);
      expect(await store.appendToStream(stream, [], 0)).toEqual({ nextExpectedVersion: 0, appended: 0 });
      await expect(store.appendToStream(stream, [], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedVersionError);
    });

    it('lets exactly one of several concurrent appenders expecting the same revision win', async () => {
      const t = scope();
      const stream = t.stream('pool');
      const type = t.type('Claimed');
      await store.appendToStream(stream, [t.event(type)], 'no_stream');
      const attempts = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => store.appendToStream(stream, [t.event(type, { i }), t.event(type, { i })], 0)),
      );
      const won = attempts.filter((a) => a.status === 'fulfilled');
      const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(5);
      for (const l of lost) expect(l.reason).toBeInstanceOf(WrongExpectedVersionError);
      expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2]);
    });

    it('serialises concurrent appenders expecting any into one gapless revision sequence', async () => {
      const t = scope();
      const stream = t.stream('delivery');
      const type = t.type('DeliveryQueued');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.appendToStream(stream, [t.event(type, { i }), t.event(type, { i })], 'any')));
      expect(results.map((r) => r.nextExpectedVersion).sort((a, b) => a - b)).toEqual([1, 3, 5, 7, 9, 11, 13, 15]);
      const read = await store.readStream(stream);
      expect(read.map((e) => e.revision)).toEqual(Array.from({ length: 16 }, (_, i) => i));
      // each append's two events stay adjacent
      for (let i = 0; i < 16; i += 2) expect(read[i]!.data).toEqual(read[i + 1]!.data);
    });
  });

  describe('idempotency by event id', () => {
    it('re-appending stored ids is a no-op, even with a stale expected version', async () => {
      const t = scope();
      const stream = t.stream('pool');
      const events = [t.event(t.type('PoolOpened')), t.event(t.type('Deposited'))];
      await store.appendToStream(stream, events, 'no_stream');
      expect(await store.appendToStream(stream, events, 'no_stream')).toEqual({ nextExpectedVersion: 1, appended: 0 });
      expect(await store.appendToStream(stream, events)).toEqual({ nextExpectedVersion: 1, appended: 0 });
      expect(await store.appendToStream(stream, [events[1]!])).toEqual({ nextExpectedVersion: 1, appended: 0 });
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('on partial overlap appends only the new ids, and a repeated id within one append is written once', async () => {
      const t = scope();
      const stream = t.stream('pool');
      const type = t.type('Deposited');
      const [a, b, c] = [t.event(type, { n: 'a' }), t.event(type, { n: 'b' }), t.event(type, { n: 'c' })];
      await store.appendToStream(stream, [a, b]);
      expect(await store.appendToStream(stream, [a, b, c, c])).toEqual({ nextExpectedVersion: 2, appended: 1 });
      expect((await store.readStream(stream)).map((e) => e.id)).toEqual([a.id, b.id, c.id]);
    });

    itIf(capabilities.uniqueIdsAcrossStreams)('stores an id once when two streams race to append it', async () => {
      const t = scope();
      const type = t.type('Raced');
      for (let round = 0; round < 10; round++) {
        const e = t.event(type, { round });
        const [a, b] = [t.stream(`race-a${round}`), t.stream(`race-b${round}`)];
        const results = await Promise.all([store.appendToStream(a, [e]), store.appendToStream(b, [e])]);
        expect(results.map((r) => r.appended).sort()).toEqual([0, 1]);
        const stored = [...(await store.readStream(a)), ...(await store.readStream(b))];
        expect(stored.map((x) => x.id)).toEqual([e.id]);
      }
    });

    it('reports appended 0 for a whole appendMany replay', async () => {
      const t = scope();
      const batch = [
        { streamId: t.stream('a'), events: [t.event(t.type('X'))], expectedVersion: 'no_stream' as const },
        { streamId: t.stream('b'), events: [t.event(t.type('X')), t.event(t.type('X'))], expectedVersion: 'no_stream' as const },
      ];
      expect(await store.appendMany(batch)).toEqual([
        { nextExpectedVersion: 0, appended: 1 },
        { nextExpectedVersion: 1, appended: 2 },
      ]);
      expect(await store.appendMany(batch)).toEqual([
        { nextExpectedVersion: 0, appended: 0 },
        { nextExpectedVersion: 1, appended: 0 },
      ]);
    });
  });

  describe('appendMany', () => {
    it('appends several streams at once, results in input order, $all in input order', async () => {
      const t = scope();
      const from = await store.headPosition();
      const type = t.type('Distributed');
      const appends = [t.stream('s1'), t.stream('s2'), t.stream('s3')].map((streamId, s) => ({
        streamId,
        events: Array.from({ length: s + 1 }, (_, k) => t.event(type, { s, k })),
      }));
      const results = await store.appendMany(appends);
      expect(results).toEqual([
        { nextExpectedVersion: 0, appended: 1 },
        { nextExpectedVersion: 1, appended: 2 },
        { nextExpectedVersion: 2, appended: 3 },
      ]);
      const all = eventsOf(await readAllFrom(store, from, 1000, [type]));
      expect(all.map((e) => e.id)).toEqual(appends.flatMap((a) => a.events.map((e) => e.id)));
    });

    it('keeps input order in $all for a large batch over many streams, on new and existing streams', async () => {
      const t = scope();
      const type = t.type('Bulk');
      const streams = Array.from({ length: 120 }, (_, i) => t.stream(`bulk-${i}`));
      await store.appendMany(streams.filter((_, i) => i % 2 === 0).map((streamId) => ({ streamId, events: [t.event(type, { warm: true })] })));
      const from = await store.headPosition();
      const appends = streams.map((streamId, s) => ({ streamId, events: Array.from({ length: 1 + (s % 5) }, (_, k) => t.event(type, { s, k })) }));
      const results = await store.appendMany(appends);
      expect(results).toEqual(appends.map((a, s) => ({ nextExpectedVersion: a.events.length - (s % 2 === 0 ? 0 : 1), appended: a.events.length })));
      const all = eventsOf(await readAllFrom(store, from, 1000, [type]));
      expect(all.map((e) => e.id)).toEqual(appends.flatMap((a) => a.events.map((e) => e.id)));
      expect(all.map((e) => e.revision)).toEqual(appends.flatMap((a, s) => a.events.map((_, k) => k + (s % 2 === 0 ? 1 : 0))));
    });

    itIf(capabilities.batchSharesCommitPosition)('commits a batch as one transaction: one commit position', async () => {
      const t = scope();
      const from = await store.headPosition();
      const type = t.type('Distributed');
      await store.appendMany([t.stream('s1'), t.stream('s2')].map((streamId) => ({ streamId, events: [t.event(type), t.event(type)] })));
      const all = eventsOf(await readAllFrom(store, from, 1000, [type]));
      expect(all).toHaveLength(4);
      expect(new Set(all.map((e) => e.position.commit.toString())).size).toBe(1);
    });

    it('is all or nothing when one stream conflicts', async () => {
      const t = scope();
      const type = t.type('Minted');
      const existing = t.stream('existing');
      await store.appendToStream(existing, [t.event(type)]);
      const fresh = t.stream('fresh');
      await expect(
        store.appendMany([
          { streamId: fresh, events: [t.event(type)], expectedVersion: 'no_stream' },
          { streamId: existing, events: [t.event(type)], expectedVersion: 'no_stream' },
        ]),
      ).rejects.toMatchObject({ name: 'WrongExpectedVersionError', streamId: existing, actual: 0 });
      expect(await store.readStream(fresh)).toEqual([]);
      expect(await store.readStream(existing)).toHaveLength(1);
      // the failed batch left nothing behind: the fresh stream still does not exist
      expect(await store.appendToStream(fresh, [t.event(type)], 'no_stream')).toEqual({ nextExpectedVersion: 0, appended: 1 });
    });

    it('handles a large batch across many streams', async () => {
      const t = scope();
      const type = t.type('Bulk');
      const appends = Array.from({ length: 50 }, (_, s) => ({
        streamId: t.stream(`bulk-${s}`),
        events: Array.from({ length: 20 }, (_, k) => t.event(type, { s, k })),
      }));
      const results = await store.appendMany(appends);
      expect(results.every((r) => r.appended === 20 && r.nextExpectedVersion === 19)).toBe(true);
      expect((await store.stats()).byType[type]).toBe(1000);
    });
  });

  describe('readAll', () => {
    it('pages through $all after a position, each event exactly once, in increasing positions', async () => {
      const t = scope();
      const from = await store.headPosition();
      const type = t.type('Paged');
      const ids: string[] = [];
      for (let b = 0; b < 5; b++) {
        const events = Array.from({ length: 5 }, (_, k) => t.event(type, { b, k }));
        ids.push(...events.map((e) => e.id));
        await store.appendToStream(t.stream(`paged-${b % 2}`), events);
      }
      const pages = await readAllFrom(store, from, 7);
      expect(pages.map((p) => p.events.length)).toEqual([7, 7, 7, 4]);
      expect(pages.map((p) => p.hasMore)).toEqual([true, true, true, false]);
      const all = eventsOf(pages);
      expect(all.map((e) => e.id)).toEqual(ids);
      for (let i = 1; i < all.length; i++) expect(isAfter(all[i]!.position, all[i - 1]!.position)).toBe(true);
      for (const p of pages) if (p.events.length > 0) expect(p.last).toEqual(p.events.at(-1)!.position);

      const empty = await store.readAll({ after: pages.at(-1)!.last });
      expect(empty).toEqual({ events: [], last: pages.at(-1)!.last, hasMore: false });
    });

    it('says hasMore only when a page was cut', async () => {
      const t = scope();
      const from = await store.headPosition();
      await store.appendToStream(
        t.stream('exact'),
        Array.from({ length: 4 }, () => t.event(t.type('Exact'))),
      );
      const page = await store.readAll({ after: from, maxCount: 4 });
      expect(page.events).toHaveLength(4);
      expect(page.hasMore).toBe(false);
    });

    it('filters by type while positions still move past skipped events', async () => {
      const t = scope();
      const from = await store.headPosition();
      const [wanted, other] = [t.type('Wanted'), t.type('Other')];
      const stream = t.stream('mixed');
      await store.appendToStream(stream, [t.event(wanted), t.event(other), t.event(wanted), t.event(other), t.event(other)]);
      const page = await store.readAll({ after: from, types: [wanted] });
      expect(page.events.map((e) => e.type)).toEqual([wanted, wanted]);
      const head = await store.headPosition();
      expect(page.last).toEqual(head);
      const cut = await store.readAll({ after: from, types: [wanted], maxCount: 1 });
      expect(cut.hasMore).toBe(true);
      expect(cut.last).toEqual(cut.events[0]!.position);
      expect((await store.readAll({ after: from, types: [t.type('Absent')] })).last).toEqual(head);
    });

    it('reads from START', async () => {
      const t = scope();
      await store.appendToStream(t.stream('start'), [t.event(t.type('Any'))]);
      const page = await store.readAll({ after: START, maxCount: 1 });
      expect(page.events).toHaveLength(1);
      expect(isAfter(page.events[0]!.position, START)).toBe(true);
    });
  });

  describe('positions, head and stats', () => {
    it('headPosition is the last readable event and its text form round-trips', async () => {
      const t = scope();
      await store.appendToStream(t.stream('head'), [t.event(t.type('H')), t.event(t.type('H'))]);
      const [last] = (await store.readStream(t.stream('head'), { fromRevision: 1 })).map((e) => e.position);
      const head = await store.headPosition();
      expect(head).toEqual(last);
      expect(positionFromString(positionToString(head))).toEqual(head);
    });

    it('counts events, streams and types', async () => {
      const t = scope();
      const before = await store.stats();
      const [a, b] = [t.type('A'), t.type('B')];
      await store.appendMany([
        { streamId: t.stream('x'), events: [t.event(a), t.event(b), t.event(b)] },
        { streamId: t.stream('y'), events: [t.event(b)] },
      ]);
      const after = await store.stats();
      expect(after.events - before.events).toBe(4);
      expect(after.streams - before.streams).toBe(2);
      expect(after.byType[a]).toBe(1);
      expect(after.byType[b]).toBe(3);
      expect(after.last).toEqual(await store.headPosition());
      expect(isAfter(after.last, before.last)).toBe(true);
    });
  });

  describe('catalog', () => {
    const catalogs = (type: string) => {
      const v1 = z.object({ amount: z.string().regex(/^\d+$/) });
      const v2 = z.object({ amount: z.string(), asset: z.string() });
      return {
        v1: new EventCatalog([{ type, version: 1, schema: v1 }]),
        v2: new EventCatalog([
          {
            type,
            version: 2,
            schema: v2,
            upcasters: { 1: (d) => ({ ...(d as z.infer<typeof v1>), asset: 'XLM' }) },
          },
        ]),
      };
    };

    it('rejects an invalid payload with InvalidEventError and writes nothing of the batch', async () => {
      const t = scope();
      const type = t.type('Deposited');
      const validating = await backend.open({ catalog: catalogs(type).v1 });
      try {
        const [s1, s2] = [t.stream('ok'), t.stream('bad')];
        await expect(
          validating.appendMany([
            { streamId: s1, events: [t.event(type, { amount: '10' })] },
            { streamId: s2, events: [t.event(type, { amount: 10 })] },
          ]),
        ).rejects.toBeInstanceOf(InvalidEventError);
        await expect(validating.appendToStream(s1, [t.event(t.type('NotInCatalog'), {})])).rejects.toThrow(InvalidEventError);
        await expect(validating.appendToStream(s1, [{ ...t.event(type, { amount: '1' }), version: 2 }])).rejects.toThrow(InvalidEventError);
        expect(await store.readStream(s1)).toEqual([]);
        expect(await store.readStream(s2)).toEqual([]);
        expect(await validating.appendToStream(s1, [t.event(type, { amount: '10' })])).toEqual({ nextExpectedVersion: 0, appended: 1 });
      } finally {
        await validating.close();
      }
    });

    it('rejects a non-UUID event id', async () => {
      const t = scope();
      await expect(store.appendToStream(t.stream('ids'), [{ ...t.event(t.type('X')), id: 'not-a-uuid' }])).rejects.toBeInstanceOf(InvalidEventError);
    });

    it('upcasts older payloads on every read path', async () => {
      const t = scope();
      const type = t.type('Deposited');
      const { v1, v2 } = catalogs(type);
      const writer = await backend.open({ catalog: v1 });
      const reader = await backend.open({ catalog: v2 });
      try {
        const from = await store.headPosition();
        const stream = t.stream('upcast');
        await writer.appendToStream(stream, [t.event(type, { amount: '7' })]);
        const expected = { version: 2, data: { amount: '7', asset: 'XLM' } };

        expect(await reader.readStream(stream)).toMatchObject([expected]);
        expect((await reader.readAll({ after: from, types: [type] })).events).toMatchObject([expected]);
        const pages: ReadAllPage[] = [];
        const sub = reader.subscribeToAll({ after: from, types: [type], onPage: async (p) => void pages.push(p) });
        await waitFor(() => pages.some((p) => p.events.length > 0));
        await sub.stop();
        expect(pages.flatMap((p) => p.events)).toMatchObject([expected]);
        // a store without catalog returns what is stored
        expect(await store.readStream(stream)).toMatchObject([{ version: 1, data: { amount: '7' } }]);
        // the current catalog refuses new writes at the old version
        await expect(reader.appendToStream(stream, [t.event(type, { amount: '8' })])).rejects.toBeInstanceOf(InvalidEventError);
      } finally {
        await writer.close();
        await reader.close();
      }
    });
  });

  describe('subscribeToAll', () => {
    it('delivers history then live appends in order, reports catching up, and is woken without polling', async () => {
      const t = scope();
      const type = t.type('Live');
      const from = await store.headPosition();
      const stream = t.stream('live');
      const early = Array.from({ length: 30 }, (_, i) => t.event(type, { i }));
      await store.appendToStream(stream, early);

      const seen: RecordedEvent[] = [];
      const caughtUp: GlobalPosition[] = [];
      const sub = store.subscribeToAll({
        after: from,
        types: [type],
        maxCount: 8,
        // an hour: if live events arrive, the append woke the subscriber
        pollIntervalMs: 3_600_000,
        onPage: async (p) => void seen.push(...p.events),
        onCaughtUp: (p) => caughtUp.push(p),
      });
      await waitFor(() => caughtUp.length >= 1);
      expect(seen.map((e) => e.id)).toEqual(early.map((e) => e.id));

      const late = [t.event(type, { late: 1 }), t.event(type, { late: 2 })];
      await store.appendToStream(stream, late);
      await waitFor(() => seen.length === 32);
      await waitFor(() => caughtUp.length >= 2);
      expect(seen.map((e) => e.id)).toEqual([...early, ...late].map((e) => e.id));
      expect(caughtUp.at(-1)).toEqual(seen.at(-1)!.position);
      for (let i = 1; i < seen.length; i++) expect(isAfter(seen[i]!.position, seen[i - 1]!.position)).toBe(true);

      await sub.stop();
      await expect(sub.done).resolves.toBeUndefined();
      await store.appendToStream(stream, [t.event(type)]);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toHaveLength(32);
    });

    it('ends through done when the handler fails', async () => {
      const t = scope();
      const type = t.type('Boom');
      const from = await store.headPosition();
      await store.appendToStream(t.stream('boom'), [t.event(type)]);
      const sub = store.subscribeToAll({
        after: from,
        types: [type],
        onPage: async () => {
          throw new Error('projection failed');
        },
      });
      await expect(sub.done).rejects.toThrow('projection failed');
      await expect(sub.stop()).resolves.toBeUndefined();
    });

    it('close() stops running subscriptions', async () => {
      const other = await backend.open();
      const sub = other.subscribeToAll({ after: await other.headPosition(), pollIntervalMs: 20, onPage: async () => undefined });
      await other.close();
      await expect(sub.done).resolves.toBeUndefined();
    });
  });
}

async function waitFor(cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
