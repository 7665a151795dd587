import { TcpProxy } from '../../../../test/faults/tcp-proxy';
import { InProcessRateLimiter } from '../in-process/in-process-rate-limiter';
import { RedisRateLimiter } from '../redis/redis-rate-limiter';
import { FailSafeRateLimiter } from './fail-safe-rate-limiter';

const REDIS_URL = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

/**
 * Redis going away under the API's limiter (issue 31: requests were held 5–8 s or failed with
 * MaxRetriesPerRequestError). A proxy stands in for the shared Redis, which is never stopped.
 */
describe('the fail-safe limiter when Redis is away', () => {
  let proxy: TcpProxy;
  let limiter: FailSafeRateLimiter;
  const availability: boolean[] = [];
  beforeAll(async () => {
    proxy = await TcpProxy.start({ host: REDIS_URL.hostname, port: Number(REDIS_URL.port || 6379) });
    const shared = new RedisRateLimiter({ url: `redis://127.0.0.1:${proxy.port}`, prefix: `test:rl:away:${process.pid}:${Date.now()}:` });
    limiter = new FailSafeRateLimiter(shared, new InProcessRateLimiter(), { retryEveryMs: 200, onAvailability: (up) => availability.push(up) });
  });
  afterAll(async () => {
    await proxy.restore();
    await limiter.close();
    await proxy.close();
  });

  /** Every decision of a burst of concurrent requests, and the longest any of them took. */
  async function burst(n: number, bucket: string): Promise<{ allowed: number; slowestMs: number }> {
    const started = Date.now();
    const decisions = await Promise.all(Array.from({ length: n }, () => limiter.consume(bucket, 5).then((d) => ({ d, ms: Date.now() - started }))));
    return { allowed: decisions.filter((x) => x.d.allowed).length, slowestMs: Math.max(...decisions.map((x) => x.ms)) };
  }

  it('decides without holding requests while Redis is refused, silent, and back — and the per-key limit holds throughout', async () => {
    expect((await burst(3, 'before')).allowed).toBe(3);
    expect(limiter.degraded).toBe(false);

    await proxy.cut();
    const refused = await burst(20, 'refused');
    expect(refused.slowestMs).toBeLessThan(1000);
    expect(refused.allowed).toBe(15); // rpm 5 + burst 10, kept by this instance
    expect(limiter.degraded).toBe(true);

    await proxy.blackhole();
    await new Promise((r) => setTimeout(r, 300)); // past retryEveryMs: the next request tries Redis again
    const silent = await burst(5, 'silent');
    expect(silent.slowestMs).toBeLessThan(1500); // one command timeout at most
    expect(silent.allowed).toBe(5);

    await proxy.restore();
    const deadline = Date.now() + 10_000;
    while (limiter.degraded && Date.now() < deadline) {
      await limiter.consume('after', 1000);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(limiter.degraded).toBe(false);
    expect(availability).toEqual([false, true]);
  });
});
