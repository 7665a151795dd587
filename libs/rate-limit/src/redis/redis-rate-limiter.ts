import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock, RateLimitDecision, RateLimiter } from '../rate-limiter.port';
import { assertRpm, capacity, decision, WINDOW_MS } from '../sliding-window-rule';
import { SLIDING_WINDOW_LUA } from './sliding-window.lua';

export interface RedisRateLimiterOptions {
  /** e.g. redis://127.0.0.1:6379; or pass an existing client (not closed by close()). */
  readonly url?: string;
  readonly client?: Redis;
  /** Key namespace, so several deployments (or test runs) can share one Redis. */
  readonly prefix?: string;
  /** Tests only: drive time from the client. Default: the Redis server clock, shared by every instance. */
  readonly clock?: Clock;
}

type SlidingWindowCommand = (key: string, now: string, window: number, cap: number, member: string) => Promise<number[]>;

/** The production limiter: one sorted set per bucket in Redis, shared by every API instance. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly run: SlidingWindowCommand;

  constructor(private readonly options: RedisRateLimiterOptions = {}) {
    this.ownsClient = !options.client;
    this.redis = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379', { lazyConnect: false, maxRetriesPerRequest: 2 });
    this.prefix = options.prefix ?? 'rl:';
    // defineCommand sends EVALSHA and falls back to EVAL once on NOSCRIPT (ioredis docs, "Lua Scripting").
    this.redis.defineCommand('dobSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
    const cmd = (this.redis as unknown as { dobSlidingWindow: SlidingWindowCommand }).dobSlidingWindow;
    this.run = cmd.bind(this.redis);
  }

  async consume(bucket: string, rpm: number): Promise<RateLimitDecision> {
    assertRpm(rpm);
    const now = this.options.clock ? String(this.options.clock()) : '';
    const member = randomBytes(9).toString('base64url');
    const [allowed, count, at, oldest, newest] = await this.run(this.prefix + bucket, now, WINDOW_MS, capacity(rpm), member);
    return decision(rpm, allowed === 1, Number(count), Number(oldest), Number(newest), Number(at));
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
