import { eventTypeCountsProjection, readEventTypeCounts } from './event-type-counts.projection';
import { ProjectionRunner } from './runner/projection-runner';
import { readModelStores } from './testing/store-matrix';

describe.each(readModelStores())('event_type_counts on $name', (factory) => {
  it('counts events by type across batches and keeps the latest position per type', async () => {
    const t = await factory.open();
    const store = t.events;
    const runner = new ProjectionRunner(store, t.store, [eventTypeCountsProjection], { batchSize: 3 });
    try {
      const ev = (n: number, type: string) => ({ id: `30000000-0000-4000-8000-${String(n).padStart(12, '0')}`, type, version: 1, data: {} });
      await store.appendToStream('a', [ev(1, 'pool.a'), ev(2, 'pool.b'), ev(3, 'pool.a'), ev(4, 'pool.a')]);
      await store.appendToStream('b', [ev(5, 'pool.c'), ev(6, 'pool.b'), ev(7, 'pool.a')]);
      await runner.start();
      await runner.waitUntilCaughtUp();
      const last = (await store.readAll({ types: ['pool.b'] })).events.at(-1)!.position;
      const counts = await readEventTypeCounts(t.store);
      expect(counts.map((c) => [c.eventType, c.events])).toEqual([
        ['pool.a', 4],
        ['pool.b', 2],
        ['pool.c', 1],
      ]);
      expect(counts[1]!.lastPosition).toBe(`${last.commit}:${last.prepare}`);
    } finally {
      await runner.stop();
      await t.close();
    }
  });
});
