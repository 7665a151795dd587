import { buildAppendBatch } from '../append-batch';
import type { StreamAppend } from '../event-store.port';
import { numberBatch } from './numbered-batch';

const event = (n: number) => ({ id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, type: 'PoolTouched', version: 1, data: { n } });
const heads = (known: Record<string, number>) => (streamId: string) => known[streamId];
const batchOf = (...appends: StreamAppend[]) => buildAppendBatch(appends);

describe('numberBatch', () => {
  it('numbers each event from its stream head, in batch order, and knows the results', () => {
    const numbered = numberBatch(
      batchOf({ streamId: 'pool-a', events: [event(1), event(2)] }, { streamId: 'pool-b', events: [event(3)], expectedVersion: 4 }),
      heads({ 'pool-a': 0, 'pool-b': 4 }),
    );
    const sent = JSON.parse(numbered!.json) as { streams: unknown[]; events: { s: string; r: number; id: string }[]; client_revisions: boolean };
    expect(sent.client_revisions).toBe(true);
    expect(sent.streams).toEqual([{ stream_id: 'pool-a' }, { stream_id: 'pool-b' }]);
    expect(sent.events.map((e) => [e.s, e.r, e.id])).toEqual([
      ['pool-a', 1, event(1).id],
      ['pool-a', 2, event(2).id],
      ['pool-b', 5, event(3).id],
    ]);
    expect(numbered!.results).toEqual([
      { nextExpectedVersion: 2, appended: 2 },
      { nextExpectedVersion: 5, appended: 1 },
    ]);
  });

  it.each([
    ['a stream whose head is not known', batchOf({ streamId: 'pool-new', events: [event(1)] })],
    ['an empty append (it writes nothing that could show its head to be behind)', batchOf({ streamId: 'pool-a', events: [] })],
    ['an id twice in the batch', batchOf({ streamId: 'pool-a', events: [event(1), event(1)] })],
    ['an expected version the head does not meet', batchOf({ streamId: 'pool-a', events: [event(1)], expectedVersion: 2 })],
    ['no_stream on a stream with a head', batchOf({ streamId: 'pool-a', events: [event(1)], expectedVersion: 'no_stream' })],
  ])('leaves %s to es_append', (_, batch) => {
    expect(numberBatch(batch, heads({ 'pool-a': 3 }))).toBeNull();
  });

  it('takes any and stream_exists on a known head', () => {
    for (const expectedVersion of ['any', 'stream_exists'] as const) {
      expect(numberBatch(batchOf({ streamId: 'pool-a', events: [event(1)], expectedVersion }), heads({ 'pool-a': 3 }))?.results).toEqual([
        { nextExpectedVersion: 4, appended: 1 },
      ]);
    }
  });
});
