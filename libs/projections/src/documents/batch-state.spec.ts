import type { GlobalPosition } from '@dob/event-store';
import { BatchState, isCanonicalIso, type DocumentSource } from './batch-state';
import type { CollectionSpecs, Doc } from './collections';

const COLLECTIONS: CollectionSpecs = {
  rounds: {
    fields: { pool: 'text', round_id: 'int8', total: 'amount', created_at: 'timestamp', expires_at: 'timestamp?' },
    key: ['pool', 'round_id'],
  },
};
const NOTHING_STORED: DocumentSource = { get: async () => null, find: async () => [] };
const AT: GlobalPosition = { commit: 1n, prepare: 1n };

/** Writes one round with these times and returns what the batch kept of it. */
function written(created_at: unknown, expires_at: unknown = null): Doc {
  const state = new BatchState(NOTHING_STORED, COLLECTIONS);
  state.at(AT);
  state.put('rounds', { pool: 'P', round_id: 1, total: 5n, created_at, expires_at } as Doc);
  return state.writes()[0]!.doc;
}

describe('BatchState: a written document is checked and its timestamps normalised', () => {
  it('keeps a timestamp already in toISOString form, every time it is written', () => {
    for (let i = 0; i < 3; i++) expect(written('2025-01-02T05:17:05.000Z').created_at).toBe('2025-01-02T05:17:05.000Z');
  });

  it('normalises other spellings of an instant to toISOString form, also when written again', () => {
    for (let i = 0; i < 2; i++) {
      expect(written('2025-01-02T05:17:05Z').created_at).toBe('2025-01-02T05:17:05.000Z');
      expect(written('2025-01-02T06:17:05.000+01:00').created_at).toBe('2025-01-02T05:17:05.000Z');
      // Date.parse rolls an out-of-range day over; the stored form is the day it means.
      expect(written('2025-02-30T00:00:00.000Z').created_at).toBe('2025-03-02T00:00:00.000Z');
      expect(written('2025-01-01T24:00:00.000Z').created_at).toBe('2025-01-02T00:00:00.000Z');
      expect(written('1900-02-29T00:00:00.000Z').created_at).toBe('1900-03-01T00:00:00.000Z');
      expect(written('2024-02-29T00:00:00.000Z').created_at).toBe('2024-02-29T00:00:00.000Z');
    }
  });

  it('normalises nullable timestamps and keeps null', () => {
    expect(written('2025-01-02T05:17:05.000Z', '2026-01-02T05:17:05Z').expires_at).toBe('2026-01-02T05:17:05.000Z');
    expect(written('2025-01-02T05:17:05.000Z', null).expires_at).toBeNull();
  });

  it('refuses what is not an instant, also after valid ones were seen', () => {
    written('2025-01-02T05:17:05.000Z');
    expect(() => written('2025-13-01T00:00:00.000Z')).toThrow('rounds.created_at: string 2025-13-01T00:00:00.000Z is not a valid timestamp');
    expect(() => written('yesterday')).toThrow('is not a valid timestamp');
    expect(() => written(1735795025000)).toThrow('rounds.created_at: number 1735795025000 is not a valid timestamp');
    expect(() => written(null)).toThrow('rounds.created_at: null in a non-null field');
  });

  it('takes a string as already normalised exactly when the Date round trip would give it back', () => {
    const roundTrip = (v: string) => {
      const ms = Date.parse(v);
      return !Number.isNaN(ms) && new Date(ms).toISOString() === v;
    };
    const candidates: string[] = [];
    for (const year of ['0000', '1900', '1970', '2000', '2024', '2025', '9999', '20x5'])
      for (const month of ['00', '01', '02', '04', '12', '13'])
        for (const day of ['00', '01', '28', '29', '30', '31', '32'])
          for (const time of ['00:00:00.000', '23:59:59.999', '24:00:00.000', '23:60:00.000', '23:59:60.000', '12:3a:00.000', '12:30:00.0-1'])
            candidates.push(`${year}-${month}-${day}T${time}Z`);
    candidates.push(
      '2025-01-02T05:17:05.000z',
      '2025-01-02 05:17:05.000Z',
      '2025-01-02T05:17:05.000+00',
      '2025/01/02T05:17:05.000Z',
      '+02025-01-02T05:17:05.000Z',
    );
    const disagreements = candidates.filter((v) => isCanonicalIso(v) !== roundTrip(v));
    expect(disagreements).toEqual([]);
    expect(candidates.filter(isCanonicalIso).length).toBeGreaterThan(100);
  });

  it('refuses missing and unknown fields', () => {
    const state = new BatchState(NOTHING_STORED, COLLECTIONS);
    state.at(AT);
    expect(() => state.put('rounds', { pool: 'P', round_id: 1, total: 5n, expires_at: null })).toThrow('rounds.created_at: missing');
    expect(() => state.put('rounds', { pool: 'P', round_id: 1, total: 5n, created_at: '2025-01-02T05:17:05.000Z', expires_at: null, extra: 1 })).toThrow(
      'rounds: unknown fields extra',
    );
  });

  it('keeps a document in normal form as given, frozen; copies one whose timestamp it normalises, leaving the given one as it was', () => {
    const state = new BatchState(NOTHING_STORED, COLLECTIONS);
    state.at(AT);
    const normal: Doc = { pool: 'P', round_id: 1, total: 5n, created_at: '2025-01-02T05:17:05.000Z', expires_at: null };
    state.put('rounds', normal);
    expect(state.writes()[0]!.doc).toBe(normal);
    expect(Object.isFrozen(normal)).toBe(true);
    expect(() => {
      (normal as Record<string, unknown>).total = 6n; // a reducer changing a document after writing it
    }).toThrow(TypeError);

    const other: Doc = { pool: 'P', round_id: 2, total: 5n, created_at: '2025-01-02T05:17:05Z', expires_at: '2026-01-02T05:17:05Z' };
    state.put('rounds', other);
    const kept = state.writes()[1]!.doc;
    expect(kept).not.toBe(other);
    expect(kept).toEqual({ pool: 'P', round_id: 2, total: 5n, created_at: '2025-01-02T05:17:05.000Z', expires_at: '2026-01-02T05:17:05.000Z' });
    expect(Object.isFrozen(kept)).toBe(true);
    expect(other.created_at).toBe('2025-01-02T05:17:05Z');
    expect(Object.isFrozen(other)).toBe(false);
  });
});
