import { newDocument, pickFields, type DocOf } from './document-types';

const FIELDS = { id: 'text', n: 'int', big: 'int8', total: 'amount', on: 'bool', rate: 'decimal?', at: 'timestamp?', label: 'text?' } as const;

describe('newDocument', () => {
  it('gives nullable fields null, flags false, counts and amounts zero, and takes the rest as given', () => {
    const doc: DocOf<typeof FIELDS> = newDocument(FIELDS, { id: 'a' });
    expect(doc).toEqual({ id: 'a', n: 0, big: 0, total: 0n, on: false, rate: null, at: null, label: null });
    expect(Object.keys(doc)).toEqual(Object.keys(FIELDS));
  });

  it('keeps given values over defaults', () => {
    expect(newDocument(FIELDS, { id: 'b', n: 7, label: 'x' })).toMatchObject({ id: 'b', n: 7, label: 'x' });
  });

  it('refuses a field with no default that was not given', () => {
    expect(() => newDocument(FIELDS, {} as never)).toThrow('field id (text) has no default');
  });
});

describe('pickFields', () => {
  it('keeps the named fields with their specs, in the declaration order', () => {
    const picked = pickFields(FIELDS, ['label', 'id', 'total']);
    expect(picked).toEqual({ id: 'text', total: 'amount', label: 'text?' });
    expect(Object.keys(picked)).toEqual(['id', 'total', 'label']);
  });
});
