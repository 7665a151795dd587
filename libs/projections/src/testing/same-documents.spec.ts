import { expectSameDocuments } from './same-documents';

describe('expectSameDocuments: toEqual, without its cost when equal', () => {
  const doc = (balance: bigint, at = new Date(0)) => ({ account: 'GA', balance, at });

  it('passes on equal documents (bigints and dates included)', () => {
    expect(() => expectSameDocuments('m', [doc(1n), doc(2n)], [doc(1n), doc(2n)])).not.toThrow();
  });

  it("fails with toEqual's diff, naming the model, when a value differs", () => {
    expect(() => expectSameDocuments('pools.pools', [doc(1n)], [doc(2n)])).toThrow(/pools\.pools/);
    expect(() => expectSameDocuments('m', [doc(1n, new Date(1))], [doc(1n)])).toThrow();
    expect(() => expectSameDocuments('m', [doc(1n)], [doc(1n), doc(1n)])).toThrow();
  });

  it("keeps toEqual's verdict where the strict check is stricter: an undefined property or another prototype", () => {
    expect(() => expectSameDocuments('m', [{ a: 1, b: undefined }], [{ a: 1 }])).not.toThrow();
    expect(() => expectSameDocuments('m', [Object.assign(Object.create(null), { a: 1 })], [{ a: 1 }])).not.toThrow();
  });
});
