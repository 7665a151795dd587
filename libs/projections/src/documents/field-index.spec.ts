import { FieldIndex } from './field-index';

const ids = (index: FieldIndex, where: Record<string, unknown>) => [...index.ids(where as never)].sort();

describe('FieldIndex', () => {
  it('follows documents as their indexed fields change, and ignores changes to the others', () => {
    const index = new FieldIndex(['pool', 'status']);
    index.move('a', undefined, { pool: 'P', status: 'active', amount: 1n });
    index.move('b', undefined, { pool: 'P', status: 'active', amount: 2n });
    expect(ids(index, { pool: 'P', status: 'active' })).toEqual(['a', 'b']);

    index.move('a', { pool: 'P', status: 'active', amount: 1n }, { pool: 'P', status: 'active', amount: 5n });
    expect(ids(index, { pool: 'P', status: 'active' })).toEqual(['a', 'b']);

    index.move('b', { pool: 'P', status: 'active', amount: 2n }, { pool: 'P', status: 'sold', amount: 0n });
    expect(ids(index, { pool: 'P', status: 'active' })).toEqual(['a']);
    expect(ids(index, { pool: 'P', status: 'sold' })).toEqual(['b']);

    index.move('a', { pool: 'P', status: 'active', amount: 5n }, undefined);
    expect(ids(index, { pool: 'P', status: 'active' })).toEqual([]);
  });

  it('tells a bigint from the number of the same digits, and null from a missing field', () => {
    const index = new FieldIndex(['amount', 'closed_at']);
    index.move('big', undefined, { amount: 1n, closed_at: null });
    index.move('num', undefined, { amount: 1, closed_at: null });
    index.move('text', undefined, { amount: '1n', closed_at: null });
    expect(ids(index, { amount: 1n, closed_at: null })).toEqual(['big']);
    expect(ids(index, { amount: 1, closed_at: null })).toEqual(['num']);
    expect(ids(index, { amount: '1n', closed_at: null })).toEqual(['text']);
    expect(ids(index, { amount: 1n })).toEqual(['big']); // a field the filter leaves out reads as null
  });
});
