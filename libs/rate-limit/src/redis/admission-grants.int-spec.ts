import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { prng } from '../rate-limiter.contract';
import type { Clock, RateLimitDecision } from '../rate-limiter.port';
import { BURST, WINDOW_MS } from '../sliding-window-rule';
import { maxAdmissionsPerWindow } from '../window-audit';
import { GRANT_LIFETIME_MS } from './admission-grants';
import { RedisRateLimiter } from './redis-rate-limiter';
import { ADMIT_LUA } from './sliding-window.lua';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('RedisRateLimiter admission grants (real Redis, driven clock)', () => {
  let now = 1_710_000_000_000;
  const clock: Clock = () => now;
  let prefix: string;
  let inspect: Redis;
  const limiters: RedisRateLimiter[] = [];
  const make = () => {
    const l = new RedisRateLimiter({ url: REDIS_URL, clock, prefix });
    limiters.push(l);
    return l;
  };
  const burst = (l: RedisRateLimiter, bucket: string, rpm: number, n: number) => Promise.all(Array.from({ length: n }, () => l.consume(bucket, rpm)));

  beforeEach(() => {
    now = 1_710_000_000_000;
    prefix = `test:rl:${randomBytes(6).toString('hex')}:`;
    inspect = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((l) => l.close()));
    await inspect.quit();
  });

  it('two instances hammering one 6,000-rpm bucket admit ≤ rpm + 10 in every closed 60-s window, and reach it', async () => {
    const rpm = 6000;
    const [a, b] = [make(), make()];
    const rand = prng(7);
    const admitted: number[] = [];
    const perInstance = [0, 0];
    let requests = 0;
    const end = now + 3 * WINDOW_MS + 20_000;
    while (now < end) {
      // Both instances at once, clusters of 1 … 30 concurrent requests each, then a random gap of 0 … 40 ms.
      const [da, db] = await Promise.all([burst(a, 'hot', rpm, 1 + Math.floor(rand() * 30)), burst(b, 'hot', rpm, 1 + Math.floor(rand() * 30))]);
      requests += da.length + db.length;
      for (const [i, ds] of [da, db].entries()) {
        for (const d of ds) {
          if (!d.allowed) continue;
          admitted.push(now);
          perInstance[i]!++;
        }
      }
      now += Math.floor(rand() * 40);
    }
    expect(maxAdmissionsPerWindow(admitted)).toBe(rpm + BURST); // reached, never exceeded
    expect(perInstance[0]).toBeGreaterThan(rpm / 4); // neither instance starved the other
    expect(perInstance[1]).toBeGreaterThan(rpm / 4);
    expect(a.scriptCalls + b.scriptCalls).toBeLessThan(requests / 5);
  });

  it('a busy bucket makes far fewer script calls than requests, and says so in remaining', async () => {
    const rpm = 1_000_000;
    const l = make();
    let requests = 0;
    let last: RateLimitDecision | undefined;
    for (let step = 0; step < 200; step++) {
      const ds = await burst(l, 'busy', rpm, 25);
      requests += ds.length;
      expect(ds.every((d) => d.allowed)).toBe(true);
      last = ds[ds.length - 1];
      now += 5;
    }
    expect(l.scriptCalls).toBeLessThan(requests / 20);
    // Per-instance exact: one instance alone on the bucket sees the true budget (the window holds every admission).
    expect(last).toMatchObject({ limit: rpm, remaining: rpm + BURST - requests, retryAfterSeconds: 0 });
  });

  it('refills a busy grant ahead: once warm, no request waits for a grant request, and remaining stays exact', async () => {
    const rpm = 1_000_000;
    const l = make();
    let requests = 0;
    let waitsWhenWarm = 0;
    let last: RateLimitDecision | undefined;
    for (let step = 0; step < 120; step++) {
      const ds = await burst(l, 'steady', rpm, 25);
      requests += ds.length;
      last = ds[ds.length - 1];
      if (step === 20) waitsWhenWarm = l.grantWaits;
      now += 2;
      // A pause in the traffic long enough for a refill sent during the burst to land: replies come in order on the
      // limiter's connection, so after a PING's reply (and the microtasks it queued) the refill is installed.
      await l.redis.ping();
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Without refilling ahead every grant's end made the next burst wait on a refill (≥ 1 wait per grant).
    expect(l.grantWaits).toBe(waitsWhenWarm);
    expect(l.scriptCalls).toBeLessThan(requests / 20);
    expect(last).toMatchObject({ limit: rpm, remaining: rpm + BURST - requests });
  });

  it('a refill ahead that finds no room admits no one: the set is as before', async () => {
    const rpm = 600;
    const key = `${prefix}full`;
    const cap = rpm + BURST;
    await inspect.zadd(key, ...Array.from({ length: cap - 2 }, (_, i) => [now - 1000, `m${i}`]).flat());
    const reply = (await inspect.eval(ADMIT_LUA, 1, key, String(now), WINDOW_MS, cap, 'probe', 10, GRANT_LIFETIME_MS, 3, 'grant-only')) as number[];
    expect(reply.slice(0, 3)).toEqual([0, 0, cap - 2]);
    expect(await inspect.zcard(key)).toBe(cap - 2);
    // The same request for a request of its own admits its sender alone.
    const own = (await inspect.eval(ADMIT_LUA, 1, key, String(now), WINDOW_MS, cap, 'probe', 10, GRANT_LIFETIME_MS, 3, '')) as number[];
    expect(own.slice(0, 3)).toEqual([1, 0, cap - 1]);
  });

  it('returns unused members when a grant expires: the set then holds exactly the admissions, at their times', async () => {
    const rpm = 60_000;
    const l = make();
    const key = `${prefix}ret`;
    const times: number[] = [];
    for (let round = 0; round < 6; round++) {
      for (const d of await burst(l, 'ret', rpm, 40)) if (d.allowed) times.push(now);
      now += 1;
    }
    now += 20;
    for (const d of await burst(l, 'ret', rpm, 3)) if (d.allowed) times.push(now); // a large grant, mostly unused
    expect(times).toHaveLength(6 * 40 + 3);
    expect(await inspect.zcard(key)).toBeGreaterThan(times.length); // the live grant holds unused members

    now += GRANT_LIFETIME_MS + 1;
    l.returnExpiredGrants();
    await l.redis.ping(); // the return went out first on the same connection
    expect(await inspect.zcard(key)).toBe(times.length);
    const scores = (await inspect.zrange(key, '0', '-1', 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    expect(scores.sort((x, y) => x - y)).toEqual(times.sort((x, y) => x - y)); // restamped to each admission's time
  });

  it('keeps one script per request for a 60-rpm bucket', async () => {
    const l = make();
    const ds = [...(await burst(l, 'small', 60, 30)), ...(await burst(l, 'small', 60, 45))];
    expect(ds.filter((d) => d.allowed)).toHaveLength(60 + BURST);
    expect(l.scriptCalls).toBe(75);
    expect(await inspect.zcard(`${prefix}small`)).toBe(60 + BURST);
  });

  it('fills a granted bucket exactly to rpm + 10 from one instant, then refuses the waiting requests together', async () => {
    const rpm = 600;
    const l = make();
    const ds = await burst(l, 'edge', rpm, 700);
    const allowed = ds.filter((d) => d.allowed);
    expect(allowed).toHaveLength(rpm + BURST);
    expect(ds.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 61 && d.remaining === 0)).toBe(true);
    expect(await inspect.zcard(`${prefix}edge`)).toBe(rpm + BURST);

    const before = l.scriptCalls;
    const refused = await burst(l, 'edge', rpm, 20);
    expect(refused.every((d) => !d.allowed && d.retryAfterSeconds === 61)).toBe(true);
    expect(l.scriptCalls - before).toBe(1); // one grant request; the others waited on it
    now += WINDOW_MS + GRANT_LIFETIME_MS + 1;
    expect(await l.consume('edge', rpm)).toMatchObject({ allowed: true });
  });

  it('never refuses a client pacing at rpm/60 per second across two instances', async () => {
    const rpm = 6000;
    const [a, b] = [make(), make()];
    const gap = WINDOW_MS / rpm;
    const start = now;
    const refused: number[] = [];
    for (let i = 0; i < rpm * 3; i++) {
      now = start + Math.round(i * gap);
      const d = await (i % 2 ? a : b).consume('pacer', rpm);
      if (!d.allowed) refused.push(i);
    }
    expect(refused).toEqual([]);
    expect(a.scriptCalls + b.scriptCalls).toBeLessThan(rpm * 3);
  });

  it('keeps the cap when a grant is never returned (its instance died): its members count at their latest time', async () => {
    const rpm = 600;
    const [a, b] = [make(), make()];
    const admitted: number[] = [];
    const record = (ds: RateLimitDecision[]) => ds.forEach((d) => d.allowed && admitted.push(now));
    record(await burst(a, 'orphan', rpm, 61)); // grows a's next grant
    now += 10;
    record(await burst(a, 'orphan', rpm, 2)); // a large grant, two members used
    now += GRANT_LIFETIME_MS - 1;
    record(await burst(a, 'orphan', rpm, 40)); // the rest used at the end of its life; `a` then never returns it
    now = admitted[admitted.length - 1]! + WINDOW_MS - 50;
    record(await burst(b, 'orphan', rpm, 700)); // b's window reaches back into the orphan's last 50 ms
    expect(maxAdmissionsPerWindow(admitted)).toBeLessThanOrEqual(rpm + BURST); // its unused members block until they age out
  });

  it('never refuses a pacing client whose requests move between instances in runs (timers return expired grants)', async () => {
    const rpm = 60_000;
    const instances = [make(), make()];
    const rand = prng(11);
    const gap = WINDOW_MS / rpm;
    const start = now;
    const refused: number[] = [];
    let at = 0;
    for (let i = 0; i < rpm * 2;) {
      const run = 1 + Math.floor(rand() * 300);
      for (let r = 0; r < run; r++, i++) {
        now = start + Math.round(i * gap);
        for (const l of instances) l.returnExpiredGrants(); // what each instance's expiry timer does
        if (!(await instances[at]!.consume('pacer', rpm)).allowed) refused.push(i);
      }
      at = 1 - at;
    }
    expect(refused).toEqual([]);
  });
});

describe('RedisRateLimiter admission grants on the Redis server clock', () => {
  it('two instances admit exactly rpm + 10 of a burst, and each grant timer returns what was not used', async () => {
    const prefix = `test:rl:${randomBytes(6).toString('hex')}:`;
    const [a, b, c] = [1, 2, 3].map(() => new RedisRateLimiter({ url: REDIS_URL, prefix })) as [RedisRateLimiter, RedisRateLimiter, RedisRateLimiter];
    const inspect = new Redis(REDIS_URL);
    try {
      const ds = await Promise.all(Array.from({ length: 800 }, (_, i) => (i % 2 ? a : b).consume('real', 600)));
      expect(ds.filter((d) => d.allowed)).toHaveLength(600 + BURST);

      // A fresh bucket: a few admissions from a grant sized for more (the waiting requests size it).
      const few = await Promise.all(Array.from({ length: 30 }, () => c.consume('timer', 6000)));
      await c.consume('timer', 6000);
      expect(few.every((d) => d.allowed)).toBe(true);
      // The expiry timer's return lands within a lifetime or so; wait for it without asserting when.
      for (let i = 0; i < 100 && (await inspect.zcard(`${prefix}timer`)) !== 31; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await inspect.zcard(`${prefix}timer`)).toBe(31);
      // Grants of 1, 29 (the waiting requests) and 29 or 58; the first two returned when used up, the third by its timer.
      expect(c.scriptCalls).toBe(3 + 3);
    } finally {
      await Promise.all([a.close(), b.close(), c.close(), inspect.quit()]);
    }
  });
});
