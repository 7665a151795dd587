import { InProcessRateLimiter } from '../in-process/in-process-rate-limiter';
import type { RateLimitDecision, RateLimiter } from '../rate-limiter.port';
import { FailSafeRateLimiter } from './fail-safe-rate-limiter';

/** A shared limiter the test switches off and on; it admits everything while up. */
class SwitchableLimiter implements RateLimiter {
  up = true;
  calls = 0;
  async consume(_bucket: string, rpm: number): Promise<RateLimitDecision> {
    this.calls++;
    if (!this.up) throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
    return { allowed: true, limit: rpm, remaining: rpm, resetAt: 0, retryAfterSeconds: 0, decidedAt: 0 };
  }
  async close(): Promise<void> {}
}

describe('FailSafeRateLimiter', () => {
  let now = 0;
  const clock = () => now;
  const setup = () => {
    const shared = new SwitchableLimiter();
    const events: [boolean, string?][] = [];
    const limiter = new FailSafeRateLimiter(shared, new InProcessRateLimiter(clock), {
      clock,
      retryEveryMs: 1000,
      onAvailability: (up, e) => events.push(up ? [true] : [false, (e as Error).message]),
    });
    return { shared, limiter, events };
  };

  it('decides on the shared limiter while it answers', async () => {
    const { shared, limiter } = setup();
    expect((await limiter.consume('k', 5)).allowed).toBe(true);
    expect(shared.calls).toBe(1);
    expect(limiter.degraded).toBe(false);
  });

  it('while the shared limiter fails, keeps each key to its rpm (+ burst) in this instance, trying the shared one once a second', async () => {
    const { shared, limiter, events } = setup();
    shared.up = false;
    const decisions: boolean[] = [];
    for (let i = 0; i < 20; i++) decisions.push((await limiter.consume('k', 5)).allowed);
    // the fixed rule: rpm + burst of 10 within the window, then refused — the limit still holds
    expect(decisions.filter(Boolean)).toHaveLength(15);
    expect((await limiter.consume('k', 5)).retryAfterSeconds).toBeGreaterThan(0);
    expect(shared.calls).toBe(1); // one failure, then the fallback until retryEveryMs passed
    expect(limiter.degraded).toBe(true);
    expect(events).toEqual([[false, "Stream isn't writeable and enableOfflineQueue options is false"]]);

    now += 1000;
    await limiter.consume('other', 5);
    expect(shared.calls).toBe(2); // tried again, still down
    shared.up = true;
    now += 1000;
    expect((await limiter.consume('other', 5)).allowed).toBe(true);
    expect(shared.calls).toBe(3);
    expect(limiter.degraded).toBe(false);
    expect(events).toEqual([[false, "Stream isn't writeable and enableOfflineQueue options is false"], [true]]);
  });
});
