/**
 * Rate-limiter port: one decision per request for a bucket (an API key, or an IP on the unauthenticated auth
 * routes). The rule is fixed (docs/decisions.md#d8): a sliding 60-second window with a burst allowance of 10 over the
 * bucket's `rate_limit_rpm`. Algorithm and proof: see sliding-window-rule.ts and docs/auth.md.
 */
export interface RateLimitDecision {
  readonly allowed: boolean;
  /** The bucket's rpm (X-RateLimit-Limit). */
  readonly limit: number;
  /** Requests that would be admitted right now after this one (X-RateLimit-Remaining); 0 ⇔ the next is refused. */
  readonly remaining: number;
  /** Unix seconds at which the window is empty again, i.e. the full budget is back (X-RateLimit-Reset). */
  readonly resetAt: number;
  /** Whole seconds until a request would be admitted again (Retry-After); 0 when allowed. */
  readonly retryAfterSeconds: number;
  /** The limiter's clock at the decision, ms (Redis: the server's TIME), for audits of admission records. */
  readonly decidedAt: number;
}

export interface RateLimiter {
  /** Counts one request against `bucket` if the window has room; never counts a refused request. */
  consume(bucket: string, rpm: number): Promise<RateLimitDecision>;
  /**
   * consume's decision when this process can make it without I/O (an in-process window, a local admission grant
   * with room), counted the same way; undefined when it cannot (then consume decides). Optional.
   */
  consumeNow?(bucket: string, rpm: number): RateLimitDecision | undefined;
  close(): Promise<void>;
}

/** Milliseconds since the Unix epoch; injectable so contract tests can drive time. */
export type Clock = () => number;

export const RATE_LIMITER = Symbol('RATE_LIMITER');
