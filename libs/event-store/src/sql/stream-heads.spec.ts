import { StreamHeads } from './stream-heads';

describe('StreamHeads', () => {
  it('keeps the highest head recorded, so appends finishing out of order never lower it', () => {
    const heads = new StreamHeads();
    heads.record('pool-1', 7);
    heads.record('pool-1', 4);
    expect(heads.get('pool-1')).toBe(7);
    heads.record('pool-1', 9);
    expect(heads.get('pool-1')).toBe(9);
    expect(heads.get('pool-2')).toBeUndefined();
  });

  it('forgets a stream on demand', () => {
    const heads = new StreamHeads();
    heads.record('pool-1', 3);
    heads.forget('pool-1');
    expect(heads.get('pool-1')).toBeUndefined();
  });

  it('forgets the least recently recorded stream past its capacity', () => {
    const heads = new StreamHeads(2);
    heads.record('a', 0);
    heads.record('b', 0);
    heads.record('a', 1); // a is now the most recent
    heads.record('c', 0);
    expect(heads.get('b')).toBeUndefined();
    expect([heads.get('a'), heads.get('c'), heads.size]).toEqual([1, 0, 2]);
  });
});
