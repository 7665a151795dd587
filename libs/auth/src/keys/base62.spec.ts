import { randomBytes } from 'node:crypto';
import { base62 } from './base62';

describe('base62', () => {
  it('gives a number the same digits as its big-endian bytes (the number path skips BigInt)', () => {
    const values = [0, 1, 61, 62, 3843, 0xffffffff, Number.MAX_SAFE_INTEGER, ...Array.from({ length: 200 }, () => randomBytes(4).readUInt32BE())];
    for (const n of values) {
      const bytes = Buffer.from(BigInt(n).toString(16).padStart(14, '0'), 'hex');
      expect(base62(n, 9)).toBe(base62(bytes, 9));
    }
  });

  it('pads to the width and refuses a value that needs more digits', () => {
    expect(base62(61, 3)).toBe('00z');
    expect(base62(62, 3)).toBe('010');
    expect(() => base62(62 ** 3, 3)).toThrow(RangeError);
  });
});
