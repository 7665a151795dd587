import { documentId, type CollectionSpec } from './collections';

const ONE: CollectionSpec = { fields: { pool: 'text', n: 'int' }, key: ['pool'] };
const TWO: CollectionSpec = { fields: { pool: 'text', round_id: 'int8', holder: 'text' }, key: ['pool', 'round_id', 'holder'] };

describe('documentId: the JSON text of the key values (MongoDB keeps it as _id, so it never changes form)', () => {
  it.each([
    ['plain text', 'CAAAA'],
    ['quotes and backslashes', 'a"b\\c'],
    ['control characters', 'tab\there\nnew'],
    ['non-ASCII and a lone surrogate', 'pool-é-😀-\ud800'],
    ['empty', ''],
  ])('one text key: %s', (_, pool) => {
    expect(documentId(ONE, { pool, n: 1 })).toBe(JSON.stringify([pool]));
  });

  it('several keys, in key order whatever the document order, numbers as JSON numbers', () => {
    const doc = { holder: 'GABC', round_id: 12, pool: 'CPOOL' };
    expect(documentId(TWO, doc)).toBe(JSON.stringify(['CPOOL', 12, 'GABC']));
    expect(documentId(TWO, { ...doc, round_id: -0 })).toBe(JSON.stringify(['CPOOL', -0, 'GABC']));
  });

  it('refuses a key field that is missing or not a scalar', () => {
    expect(() => documentId(TWO, { pool: 'P', holder: 'H' })).toThrow('key field round_id missing or not scalar');
    expect(() => documentId(ONE, { pool: 5n })).toThrow('key field pool missing or not scalar');
    expect(() => documentId(ONE, { pool: null })).toThrow('key field pool missing or not scalar');
  });
});
