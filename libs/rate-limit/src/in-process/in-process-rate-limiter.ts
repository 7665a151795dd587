import type { Clock, RateLimitDecision, RateLimiter } from '../rate-limiter.port';
import { assertRpm, capacity, decision, windowStart, WINDOW_MS } from '../sliding-window-rule';

/**
 * A bucket's admission log as runs: `stamps[i]` admitted `counts[i]` times, in ascending order; `head` skips runs
 * that left the window and `total` counts the admissions from `head` on. A busy key admits dozens of requests in one
 * millisecond: one run each instead of one entry each (a 1,000,000-rpm key held up to 60 s × its rate in numbers).
 */
interface Log {
  stamps: number[];
  counts: number[];
  head: number;
  total: number;
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
      log = { stamps: [], counts: [], head: 0, total: 0 };
      this.logs.set(bucket, log);
    }
    const from = windowStart(now);
    while (log.head < log.stamps.length && log.stamps[log.head]! < from) log.total -= log.counts[log.head++]!;
    if (log.head > 64 && log.head * 2 > log.stamps.length) {
      log.stamps = log.stamps.slice(log.head);
      log.counts = log.counts.slice(log.head);
      log.head = 0;
    }
    const allowed = log.total < capacity(rpm);
    if (allowed) this.insert(log, now);
    const last = log.stamps.length - 1;
    return decision(rpm, allowed, log.total, log.stamps[log.head] ?? now, log.stamps[last] ?? now, now);
  }

  /** Adds one admission at `ts`, keeping the runs sorted even if an injected clock steps back. */
  private insert(log: Log, ts: number): void {
    const { stamps, counts } = log;
    log.total++;
    let i = stamps.length;
    while (i > log.head && stamps[i - 1]! > ts) i--;
    if (i > log.head && stamps[i - 1] === ts) {
      counts[i - 1]!++;
      return;
    }
    if (i === stamps.length) {
      // The usual case, a new millisecond at the end: a push, not an insertion (this runs on every admitted request).
      stamps.push(ts);
      counts.push(1);
    } else {
      stamps.splice(i, 0, ts);
      counts.splice(i, 0, 1);
    }
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
