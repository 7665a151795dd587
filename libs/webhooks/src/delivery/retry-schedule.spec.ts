import { DEFAULT_RETRY_SCHEDULE_MS, maxAttempts, retryDelayMs } from './retry-schedule';

describe('retry schedule', () => {
  it('is the documented schedule (docs/agent-api.md#webhooks): 1 min, 5 min, 30 min, 2 h, 12 h', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n))).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
    expect(DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0)).toBe(((1 + 5 + 30) * 60 + (2 + 12) * 3600) * 1000);
  });

  it('gives up after the 5th retry fails: 6 attempts in all', () => {
    expect(retryDelayMs(6)).toBeNull();
    expect(maxAttempts()).toBe(6);
  });

  it('takes an injected schedule', () => {
    const fast = [5, 10, 20];
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, fast))).toEqual([5, 10, 20, null]);
    expect(maxAttempts(fast)).toBe(4);
  });

  it('rejects nonsense', () => {
    expect(() => retryDelayMs(0)).toThrow();
    expect(() => retryDelayMs(1.5)).toThrow();
  });
});
