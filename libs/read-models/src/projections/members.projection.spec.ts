import { poolStatsChange } from './members.projection';

describe('poolStatsChange', () => {
  it.each([
    [0n, 5n, 1, 5n], // joins
    [5n, 0n, -1, -5n], // leaves
    [5n, 8n, 0, 3n],
    [8n, 5n, 0, -3n],
    [0n, -2n, 0, 0n], // a negative balance is no member and no supply
    [-2n, 3n, 1, 3n],
    [3n, -2n, -1, -3n],
  ])('%s → %s: members %s, shares %s', (before, after, members, shares) => {
    expect(poolStatsChange(before, after)).toEqual({ members, shares });
  });
});
