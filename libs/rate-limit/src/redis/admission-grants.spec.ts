import { clampGrant, GRANT_LIFETIME_MS, grantCeiling, grantMargin, grantsApply, nextGrantSize, refillAheadSize } from './admission-grants';

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

  it('refills ahead when a quarter is left, or late in the lifetime with half used, within the ceiling with what is left', () => {
    const young = 10;
    expect(refillAheadSize(1000, 700, young, 1000, 1_000_000)).toBe(0);
    // 250 left: the refill brings the two to the ceiling (1,000), not to 1,250.
    expect(refillAheadSize(1000, 750, young, 1000, 1_000_000)).toBe(750);
    // Sized by the busier of the last finished grant and the one in use.
    expect(refillAheadSize(40, 30, young, 8, 1_000_000)).toBe(40);
    expect(refillAheadSize(40, 30, young, 100, 1_000_000)).toBe(100);
    // Late in the lifetime: only with half used (a quiet bucket does not refill every lifetime).
    const late = (GRANT_LIFETIME_MS * 3) / 4;
    expect(refillAheadSize(40, 19, late, 40, 1_000_000)).toBe(0);
    expect(refillAheadSize(40, 20, late, 40, 1_000_000)).toBe(40);
    // Used up (it is finished, not refilled ahead) or no room under the ceiling.
    expect(refillAheadSize(8, 8, young, 8, 6000)).toBe(0);
    expect(refillAheadSize(61, 0, late, 61, 600)).toBe(0);
    expect(refillAheadSize(61, 46, young, 61, 600)).toBe(46);
  });
});
