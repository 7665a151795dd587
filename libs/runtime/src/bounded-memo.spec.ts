import { BoundedMemo } from './bounded-memo';

describe('BoundedMemo', () => {
  it('computes a key once and answers it from memory after', () => {
    const memo = new BoundedMemo<string>(4);
    let computed = 0;
    const upper = (k: string) => memo.get(k, () => (computed++, k.toUpperCase()));
    expect([upper('a'), upper('a'), upper('b'), upper('a')]).toEqual(['A', 'A', 'B', 'A']);
    expect(computed).toBe(2);
  });

  it('keeps nothing when the compute throws, so it runs (and throws) again', () => {
    const memo = new BoundedMemo<number>(4);
    let tries = 0;
    const failing = () => {
      tries++;
      throw new Error('refused');
    };
    expect(() => memo.get('x', failing)).toThrow('refused');
    expect(() => memo.get('x', failing)).toThrow('refused');
    expect(tries).toBe(2);
    expect(memo.size).toBe(0);
  });

  it('never holds more than its size, and still answers right after emptying', () => {
    const memo = new BoundedMemo<number>(3);
    for (let i = 0; i < 10; i++) expect(memo.get(`k${i}`, () => i)).toBe(i);
    expect(memo.size).toBeLessThanOrEqual(3);
    expect(memo.get('k0', () => 0)).toBe(0);
    expect(() => new BoundedMemo(0)).toThrow('positive size');
  });
});
