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

type SlidingWindowCommand = (key: string, epochKey: string, now: string, window: number, cap: number, member: string) => Promise<(number | string)[]>;

/**
 * The production limiter: one sorted set per bucket in Redis, shared by every API instance. Each decision also
 * reports the value of `epochKey` (read by the same script, no extra round trip): whoever caches state that other
 * instances change (the API key cache, docs/auth.md) changes that value and compares it on every request.
 */
export class RedisRateLimiter implements RateLimiter {
  /** The client decisions run on; writers of the epoch use it (or a duplicate) so they share the server. */
  readonly redis: Redis;
  /** The shared epoch's key, in this limiter's namespace (instances sharing budgets share it). */
  readonly epochKey: string;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly run: SlidingWindowCommand;
  private readonly memberPrefix = randomBytes(9).toString('base64url') + ':';
  private admissions = 0;

  constructor(private readonly options: RedisRateLimiterOptions = {}) {
    this.ownsClient = !options.client;
    // Auto-pipelining: decisions of concurrent requests issued in one event-loop turn go out in one write (the
    // profile of `npm run bench -- auth` showed the process idle or in socket writes for most of a guarded request).
    this.redis =
      options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379', { lazyConnect: false, maxRetriesPerRequest: 2, enableAutoPipelining: true });
    this.prefix = options.prefix ?? 'rl:';
    // Buckets are `key:…` and `ip:…`, so this name cannot collide with one.
    this.epochKey = `${this.prefix}epoch`;
    // defineCommand sends EVALSHA and falls back to EVAL once on NOSCRIPT (ioredis docs, "Lua Scripting").
    this.redis.defineCommand('dobSlidingWindow', { numberOfKeys: 2, lua: SLIDING_WINDOW_LUA });
    const cmd = (this.redis as unknown as { dobSlidingWindow: SlidingWindowCommand }).dobSlidingWindow;
    this.run = cmd.bind(this.redis);
  }

  async consume(bucket: string, rpm: number): Promise<RateLimitDecision> {
    assertRpm(rpm);
    const now = this.options.clock ? String(this.options.clock()) : '';
    // Unique per admission across instances: a random per-process prefix and a counter (no entropy per request).
    const member = this.memberPrefix + (this.admissions++).toString(36);
    const [allowed, count, at, oldest, newest, epoch] = await this.run(this.prefix + bucket, this.epochKey, now, WINDOW_MS, capacity(rpm), member);
    return { ...decision(rpm, allowed === 1, Number(count), Number(oldest), Number(newest), Number(at)), epoch: String(epoch) };
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
