import { START } from './event-store.port';
import { comparePositions, isAfter, maxPosition, position, positionFromString, positionToString } from './position';

describe('GlobalPosition helpers', () => {
  it('orders by commit first, then prepare', () => {
    expect(comparePositions(position(5, 100), position(6, 1))).toBe(-1);
    expect(comparePositions(position(6, 1), position(5, 100))).toBe(1);
    expect(comparePositions(position(6, 1), position(6, 2))).toBe(-1);
    expect(comparePositions(position(6, 2), position(6, 2))).toBe(0);
    expect(isAfter(position(3, 0), START)).toBe(true);
    expect(isAfter(START, START)).toBe(false);
    expect(maxPosition(position(2, 9), position(3, 1))).toEqual(position(3, 1));
  });

  it('sorts a shuffled list the way $all is read', () => {
    const sorted = [START, position(7, 3), position(7, 10), position(8, 4), position(12, 1)];
    const shuffled = [sorted[3]!, sorted[0]!, sorted[4]!, sorted[2]!, sorted[1]!];
    expect([...shuffled].sort(comparePositions)).toEqual(sorted);
  });

  it('round-trips through "commit:prepare" text, including values beyond 2^53', () => {
    const big = position(9007199254740993n, 18446744073709551615n);
    expect(positionToString(big)).toBe('9007199254740993:18446744073709551615');
    expect(positionFromString(positionToString(big))).toEqual(big);
    expect(positionToString(START)).toBe('-1:-1');
    expect(positionFromString('-1:-1')).toBe(START);
    expect(positionFromString(' 12:4 ')).toEqual(position(12, 4));
  });

  it('rejects malformed text', () => {
    for (const bad of ['', '12', '12:', ':4', 'a:b', '1.5:2', '-2:3', '-1:5', '01:2', '1:2:3']) {
      expect(() => positionFromString(bad)).toThrow('not a global position');
    }
  });
});
