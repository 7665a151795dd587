import { EventCatalog } from '@dob/domain';
import { z } from 'zod';
import { InvalidEventError } from './errors';
import { buildAppendBatch, encodeExpectedVersion, serializeAppendBatch } from './append-batch';

const id = (n: number): string => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;
const ev = (n: number, type = 'PoolOpened', data: unknown = { n }) => ({ id: id(n), type, version: 1, data });

describe('buildAppendBatch', () => {
  it('numbers events across the batch and keeps each stream index', () => {
    const batch = buildAppendBatch([
      { streamId: 'pool-a', events: [ev(1), ev(2)], expectedVersion: 'no_stream' },
      { streamId: 'pool-b', events: [ev(3)], expectedVersion: 4 },
      { streamId: 'pool-c', events: [] },
    ]);
    expect(batch.streams).toEqual([
      { i: 0, stream_id: 'pool-a', expected: 'no_stream', n: 2 },
      { i: 1, stream_id: 'pool-b', expected: '4', n: 1 },
      { i: 2, stream_id: 'pool-c', expected: 'any', n: 0 },
    ]);
    // In batch order (the global order es_append keeps), each with its stream index and ordinal within the stream.
    expect(batch.events.map((e) => [e.i, e.k, e.id])).toEqual([
      [0, 1, id(1)],
      [0, 2, id(2)],
      [1, 1, id(3)],
    ]);
    expect(batch.distinct_ids).toBe(true);
    expect(batch.events[0]!.metadata).toEqual({});
  });

  it('tells es_append when an id occurs twice in the batch (it then numbers revisions past the repeats)', () => {
    expect(
      buildAppendBatch([
        { streamId: 'a', events: [ev(1)] },
        { streamId: 'b', events: [{ ...ev(1), id: id(1).toUpperCase() }] },
      ]).distinct_ids,
    ).toBe(false);
  });

  it('lower-cases ids so the uuid column and the idempotency check agree', () => {
    const batch = buildAppendBatch([{ streamId: 's', events: [{ ...ev(1), id: id(1).toUpperCase().replace('0000-4000', 'ABCD-4000') }] }]);
    expect(batch.events[0]!.id).toBe(id(1).replace('0000-4000', 'abcd-4000'));
  });

  it('rejects a stream twice in one batch, non-UUID ids and bad versions', () => {
    expect(() =>
      buildAppendBatch([
        { streamId: 's', events: [] },
        { streamId: 's', events: [] },
      ]),
    ).toThrow('appears twice');
    expect(() => buildAppendBatch([{ streamId: 's', events: [{ ...ev(1), id: 'evt-1' }] }])).toThrow(InvalidEventError);
    expect(() => buildAppendBatch([{ streamId: 's', events: [{ ...ev(1), version: 0 }] }])).toThrow(InvalidEventError);
    expect(() => buildAppendBatch([{ streamId: '', events: [] }])).toThrow('streamId');
  });

  it('validates against the catalog before anything is sent', () => {
    const catalog = new EventCatalog([{ type: 'PoolOpened', version: 1, schema: z.object({ n: z.number() }) }]);
    expect(() => buildAppendBatch([{ streamId: 's', events: [ev(1), ev(2, 'PoolOpened', { n: 'x' })] }], catalog)).toThrow(/invalid PoolOpened payload: n:/);
    expect(() => buildAppendBatch([{ streamId: 's', events: [ev(1, 'Nope')] }], catalog)).toThrow('unknown event type Nope');
    expect(buildAppendBatch([{ streamId: 's', events: [ev(1)] }], catalog).events).toHaveLength(1);
  });
});

describe('encodeExpectedVersion', () => {
  it('maps the port values to what es_append compares', () => {
    expect(encodeExpectedVersion(undefined)).toBe('any');
    expect(encodeExpectedVersion('stream_exists')).toBe('stream_exists');
    expect(encodeExpectedVersion(0)).toBe('0');
    expect(encodeExpectedVersion(-1)).toBe('no_stream');
    expect(() => encodeExpectedVersion(1.5)).toThrow('invalid expected version');
    expect(() => encodeExpectedVersion(-2)).toThrow('invalid expected version');
  });
});

describe('serializeAppendBatch', () => {
  it('names the event whose payload is not JSON', () => {
    const batch = buildAppendBatch([{ streamId: 's', events: [ev(1), ev(2, 'Deposited', { amount: 10n })] }]);
    expect(() => serializeAppendBatch(batch)).toThrow(/invalid Deposited payload: payload is not JSON-serialisable/);
  });
});
