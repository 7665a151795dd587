import type { Clock, RateLimitDecision, RateLimiter } from './rate-limiter.port';
import { BURST, WINDOW_MS } from './sliding-window-rule';
import { maxAdmissionsPerWindow as maxPerWindow } from './window-audit';

/**
 * One contract for every RateLimiter adapter. `make(clock)` returns a fresh limiter whose buckets are isolated
 * from other runs. Time is driven through the clock, so the suite is deterministic and fast.
 */
export interface LimiterFactory {
  readonly name: string;
  make(clock: Clock): Promise<RateLimiter>;
}

/** A small deterministic PRNG (mulberry32), so the simulated load is the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function rateLimiterContract(factory: LimiterFactory): void {
  describe(`RateLimiter contract on ${factory.name}`, () => {
    let now = 1_710_000_000_000;
    const clock: Clock = () => now;
    let limiter: RateLimiter;

    beforeEach(async () => {
      now = 1_710_000_000_000;
      limiter = await factory.make(clock);
    });
    afterEach(() => limiter.close());

    it('reports limit = rpm, the remaining budget including the burst, and reset when the window empties', async () => {
      const d = await limiter.consume('k1', 60);
      expect(d).toEqual<RateLimitDecision>({
        allowed: true,
        limit: 60,
        remaining: 60 + BURST - 1,
        resetAt: Math.ceil((now + WINDOW_MS + 1) / 1000),
        retryAfterSeconds: 0,
        decidedAt: now,
      });
    });

    it('admits rpm + 10 at once, says remaining 0 on the last, then refuses with Retry-After', async () => {
      const rpm = 5;
      const got: RateLimitDecision[] = [];
      for (let i = 0; i < rpm + BURST + 2; i++) got.push(await limiter.consume('burst', rpm));
      expect(got.filter((d) => d.allowed)).toHaveLength(rpm + BURST);
      expect(got[rpm + BURST - 1]!.remaining).toBe(0);
      expect(got[rpm + BURST - 2]!.remaining).toBe(1);
      const refused = got[rpm + BURST]!;
      expect(refused).toMatchObject({ allowed: false, limit: rpm, remaining: 0 });
      expect(refused.retryAfterSeconds).toBe(61);
      // Refused requests are not logged: just after the burst leaves the window the whole budget is back.
      now += WINDOW_MS + 1;
      const back = await limiter.consume('burst', rpm);
      expect(back).toMatchObject({ allowed: true, remaining: rpm + BURST - 1 });
    });

    it('consumeNow, where it answers, counts each request as consume would: still rpm + 10 in a window', async () => {
      const rpm = 2_000; // high enough for admission grants, where the Redis adapter can answer without a round trip
      let asked = 0;
      let admitted = 0;
      for (let i = 0; i < rpm + BURST + 50; i++) {
        const d = (i % 2 === 0 ? limiter.consumeNow?.('mixed', rpm) : undefined) ?? (asked++, await limiter.consume('mixed', rpm));
        if (d.allowed) admitted++;
      }
      expect(admitted).toBe(rpm + BURST);
      if (limiter.consumeNow) expect(asked).toBeLessThan(rpm + BURST + 50); // it did answer some
    });

    it('keeps buckets independent', async () => {
      for (let i = 0; i < 11; i++) await limiter.consume('a', 1);
      expect((await limiter.consume('a', 1)).allowed).toBe(false);
      expect((await limiter.consume('b', 1)).allowed).toBe(true);
    });

    it('never refuses a client pacing at rpm/60 per second', async () => {
      const rpm = 7; // 60/7 s is not a whole number of ms: rounding must not hurt the pacing client
      const gap = WINDOW_MS / rpm;
      const start = now;
      for (let i = 0; i < rpm * 4; i++) {
        now = start + Math.round(i * gap);
        const d = await limiter.consume('pacer', rpm);
        expect(d.allowed).toBe(true);
      }
    });

    it('under random load: no closed 60-s window admits more than rpm + 10, and remaining 0 ⇔ next refused', async () => {
      const rpm = 20;
      const rand = prng(42);
      const admitted: number[] = [];
      let previous: RateLimitDecision | undefined;
      const end = now + 2 * WINDOW_MS + 30_000;
      while (now < end) {
        // Clusters of simultaneous requests separated by random gaps (0 … 4 s).
        const cluster = 1 + Math.floor(rand() * 4);
        for (let c = 0; c < cluster; c++) {
          const d = await limiter.consume('load', rpm);
          if (previous && c > 0) expect(d.allowed).toBe(previous.remaining > 0);
          if (d.allowed) admitted.push(now);
          previous = d;
        }
        now += Math.floor(rand() * 4000);
      }
      expect(maxPerWindow(admitted)).toBe(rpm + BURST); // reached, never exceeded
    });
  });
}
