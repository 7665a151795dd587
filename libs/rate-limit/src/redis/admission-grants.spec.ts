import { clampGrant, GRANT_LIFETIME_MS, grantCeiling, grantMargin, grantsApply, nextGrantSize } from './admission-grants';

describe('admission grant policy', () => {
  it('applies from 600 rpm: the 60 and 300 tiers keep one script per request', () => {
    expect([60, 300, 599].map(grantsApply)).toEqual([false, false, false]);
    expect([600, 1000, 1_000_000].map(grantsApply)).toEqual([true, true, true]);
  });

  it('caps a grant at a tenth of the budget and at 1,000', () => {
    expect(grantCeiling(600)).toBe(61);
    expect(grantCeiling(6000)).toBe(601);
    expect(grantCeiling(1_000_000)).toBe(1000);
    expect(clampGrant(0, 600)).toBe(1);
    expect(clampGrant(5000, 600)).toBe(61);
  });

  it('leaves a margin above what a pacing client sends in a lifetime plus the return allowance', () => {
    expect(grantMargin(600)).toBe(3);
    expect(grantMargin(6000)).toBe(21);
    expect(grantMargin(1_000_000)).toBe(3335);
  });

  it('doubles a grant used up in under half its lifetime, else sizes it to what was used', () => {
    expect(nextGrantSize(8, 8, GRANT_LIFETIME_MS / 2 - 1, 6000)).toBe(16);
    expect(nextGrantSize(8, 8, GRANT_LIFETIME_MS / 2, 6000)).toBe(8);
    expect(nextGrantSize(8, 3, undefined, 6000)).toBe(3);
    expect(nextGrantSize(600, 600, 1, 6000)).toBe(601);
  });
});
