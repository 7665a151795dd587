import type { Clock, RateLimitDecision, RateLimiter } from '../rate-limiter.port';
import { assertRpm, capacity, decision, windowStart, WINDOW_MS } from '../sliding-window-rule';

/** A bucket's admission log: timestamps in arrival order; `head` skips entries that left the window. */
interface Log {
  stamps: number[];
  head: number;
}

/**
 * The embedded default: the sliding-window log in this process's memory. Correct for a single API instance only
 * (several instances need the Redis adapter to share one budget). Idle buckets are swept periodically.
 */
export class InProcessRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, Log>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly clock: Clock = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), WINDOW_MS);
    this.sweeper.unref();
  }

  async consume(bucket: string, rpm: number): Promise<RateLimitDecision> {
    return this.consumeNow(bucket, rpm);
  }

  /** Every decision here is made without I/O. */
  consumeNow(bucket: string, rpm: number): RateLimitDecision {
    assertRpm(rpm);
    const now = this.clock();
    let log = this.logs.get(bucket);
    if (!log) {
      log = { stamps: [], head: 0 };
      this.logs.set(bucket, log);
    }
    const from = windowStart(now);
    while (log.head < log.stamps.length && log.stamps[log.head]! < from) log.head++;
    if (log.head > 64 && log.head * 2 > log.stamps.length) {
      log.stamps = log.stamps.slice(log.head);
      log.head = 0;
    }
    const count = log.stamps.length - log.head;
    const allowed = count < capacity(rpm);
    if (allowed) this.insert(log, now);
    const after = log.stamps.length - log.head;
    return decision(rpm, allowed, after, log.stamps[log.head] ?? now, log.stamps[log.stamps.length - 1] ?? now, now);
  }

  /** Keeps the log sorted even if an injected clock steps back. */
  private insert(log: Log, ts: number): void {
    const s = log.stamps;
    let i = s.length;
    while (i > log.head && s[i - 1]! > ts) i--;
    s.splice(i, 0, ts);
  }

  private sweep(): void {
    const from = windowStart(this.clock());
    for (const [bucket, log] of this.logs) {
      if ((log.stamps[log.stamps.length - 1] ?? -Infinity) < from) this.logs.delete(bucket);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.logs.clear();
  }
}
