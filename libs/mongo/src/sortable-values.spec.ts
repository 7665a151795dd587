import { decimalSortKey, decodeAmount, encodeAmount, encodePosition } from './sortable-values';

const sortedBy = <T>(values: T[], key: (v: T) => string) => [...values].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

describe('sortable values', () => {
  const amounts = [
    0n,
    1n,
    -1n,
    2n,
    -2n,
    10n,
    -10n,
    99n,
    100n,
    170141183460469231731687303715884105727n,
    -170141183460469231731687303715884105728n,
    12345678901234567890n,
  ];

  it('amounts round-trip and sort numerically as strings', () => {
    for (const v of amounts) expect(decodeAmount(encodeAmount(v))).toBe(v);
    expect(sortedBy(amounts, encodeAmount)).toEqual([...amounts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('refuses amounts wider than 40 digits', () => {
    expect(() => encodeAmount(10n ** 40n)).toThrow(RangeError);
    expect(() => encodeAmount(-(10n ** 40n))).toThrow(RangeError);
  });

  it('decimal keys sort numerically, equal values with different scales share a key', () => {
    const decimals = ['0', '0.5', '0.55', '0.6', '1', '1.05', '1.5', '12.5', '12.50', '100', '-0.5', '-0.55', '-1', '-1.5', '-12', '0.0', '-0', '99999.99999'];
    const numeric = [...decimals].sort((a, b) => Number(a) - Number(b));
    const byKey = sortedBy(decimals, decimalSortKey);
    expect(byKey.map(Number)).toEqual(numeric.map(Number));
    expect(decimalSortKey('12.50')).toBe(decimalSortKey('12.5'));
    expect(decimalSortKey('-0')).toBe(decimalSortKey('0.00'));
    expect(() => decimalSortKey('1e5')).toThrow();
  });

  it('positions compare in $all order', () => {
    const ps = [
      { commit: 10n, prepare: 2n },
      { commit: 9n, prepare: 100n },
      { commit: 10n, prepare: 10n },
      { commit: 1000n, prepare: 0n },
    ];
    expect(sortedBy(ps, encodePosition)).toEqual([ps[1], ps[0], ps[2], ps[3]]);
    expect(() => encodePosition({ commit: -1n, prepare: -1n })).toThrow(RangeError);
  });
});
