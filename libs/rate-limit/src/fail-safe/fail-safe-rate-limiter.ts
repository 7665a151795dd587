import type { RateLimitDecision, RateLimiter } from '../rate-limiter.port';

export interface FailSafeOptions {
  /** After the shared limiter failed, this long on the fallback before one request tries it again (ms). */
  readonly retryEveryMs?: number;
  /** Told when decisions move to the fallback (false, with the error) and back (true). */
  readonly onAvailability?: (available: boolean, error?: unknown) => void;
  readonly clock?: () => number;
}

/**
 * The shared limiter (Redis) while it answers, this instance's own (in-process, the same rule and rpm) while it
 * does not — the fail-safe docs/auth.md "When Redis is away" chose: agents keep trading through a Redis outage
 * and each instance still caps every key at its rpm, so the total is at most rpm × instances for the outage.
 * A failed decision is decided again by the fallback, so no request waits on a dead server more than once
 * (ioredis is bounded: no offline queue, a command timeout); one request per `retryEveryMs` tries Redis again.
 */
export class FailSafeRateLimiter implements RateLimiter {
  private fallbackUntil = -Infinity;
  private failed = false;
  private readonly retryEveryMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly shared: RateLimiter,
    private readonly fallback: RateLimiter,
    private readonly options: FailSafeOptions = {},
  ) {
    this.retryEveryMs = options.retryEveryMs ?? 1000;
    this.clock = options.clock ?? Date.now;
  }

  /** Decisions are made by the fallback now. */
  get degraded(): boolean {
    return this.failed;
  }

  async consume(bucket: string, rpm: number): Promise<RateLimitDecision> {
    if (this.clock() < this.fallbackUntil) return this.fallback.consume(bucket, rpm);
    this.fallbackUntil = this.failed ? this.clock() + this.retryEveryMs : -Infinity; // the others wait for this try
    try {
      const d = await this.shared.consume(bucket, rpm);
      if (this.failed) {
        this.failed = false;
        this.fallbackUntil = -Infinity;
        this.options.onAvailability?.(true);
      }
      return d;
    } catch (e) {
      this.fallbackUntil = this.clock() + this.retryEveryMs;
      if (!this.failed) {
        this.failed = true;
        this.options.onAvailability?.(false, e);
      }
      return this.fallback.consume(bucket, rpm);
    }
  }

  consumeNow(bucket: string, rpm: number): RateLimitDecision | undefined {
    return this.clock() < this.fallbackUntil ? this.fallback.consumeNow?.(bucket, rpm) : this.shared.consumeNow?.(bucket, rpm);
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close().catch(() => undefined), this.fallback.close()]);
  }
}
