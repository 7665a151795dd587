import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { InProcessRateLimiter } from './in-process/in-process-rate-limiter';
import { rateLimiterContract } from './rate-limiter.contract';
import { RedisRateLimiter } from './redis/redis-rate-limiter';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

rateLimiterContract({ name: 'in-process', make: async (clock) => new InProcessRateLimiter(clock) });
rateLimiterContract({
  name: 'redis',
  make: async (clock) => new RedisRateLimiter({ url: REDIS_URL, clock, prefix: `test:rl:${randomBytes(6).toString('hex')}:` }),
});

describe('RedisRateLimiter on the Redis server clock', () => {
  it('shares one budget between two instances and uses one sorted set per bucket', async () => {
    const prefix = `test:rl:${randomBytes(6).toString('hex')}:`;
    const a = new RedisRateLimiter({ url: REDIS_URL, prefix });
    const b = new RedisRateLimiter({ url: REDIS_URL, prefix });
    const inspect = new Redis(REDIS_URL);
    try {
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).consume('shared', 5)));
      expect(results.filter((d) => d.allowed)).toHaveLength(15);
      expect(await inspect.zcard(`${prefix}shared`)).toBe(15);
      expect(await inspect.pttl(`${prefix}shared`)).toBeGreaterThan(60_000);
    } finally {
      await Promise.all([a.close(), b.close(), inspect.quit()]);
    }
  });
});
