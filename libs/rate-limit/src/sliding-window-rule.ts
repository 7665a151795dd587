import type { RateLimitDecision } from './rate-limiter.port';

/**
 * Sliding-window log, capped at rpm + BURST admissions in any closed window [t − 60 s, t].
 *
 * A request at time t is admitted iff fewer than rpm + BURST admissions lie in [t − WINDOW_MS, t]; refused
 * requests are not logged. Both invariants of docs/decisions.md#d8 follow:
 * 1. No 60-s window admits more than rpm + 10: take any closed window [a, a + 60 s] and its last admission t_k.
 *    Every admission in the window lies in [t_k − 60 s, t_k] (because a ≥ t_k − 60 s), and when t_k was admitted
 *    that interval held fewer than rpm + 10 earlier admissions, so the window holds at most rpm + 10.
 * 2. A client pacing at rpm/60 per second (gaps ≥ 60/rpm s) is never refused: [t − 60 s, t] then contains at most
 *    rpm of its earlier requests (rpm + 1 with the one at t), below the cap rpm + 10; the 9 spare slots also absorb
 *    millisecond rounding and jitter.
 * Both adapters (in-process and Redis) evaluate exactly this rule; this module holds the shared arithmetic.
 */
export const WINDOW_MS = 60_000;
export const BURST = 10;

export function capacity(rpm: number): number {
  return rpm + BURST;
}

/** Oldest timestamp still inside the window at `now` (entries with ts < this have left it). */
export function windowStart(now: number): number {
  return now - WINDOW_MS;
}

/**
 * Builds the decision from the window after the attempt: `count` admissions in it (including this one when
 * admitted), its oldest and newest timestamps (ms).
 */
export function decision(rpm: number, allowed: boolean, count: number, oldest: number, newest: number, now: number): RateLimitDecision {
  const cap = capacity(rpm);
  // An entry stamped s stays in the window through s + WINDOW_MS and leaves at s + WINDOW_MS + 1.
  const resetAt = Math.ceil((newest + WINDOW_MS + 1) / 1000);
  const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((oldest + WINDOW_MS + 1 - now) / 1000));
  return { allowed, limit: rpm, remaining: Math.max(0, cap - count), resetAt, retryAfterSeconds, decidedAt: now };
}

export function assertRpm(rpm: number): void {
  if (!Number.isInteger(rpm) || rpm < 1) throw new RangeError(`rate_limit_rpm must be a positive integer, got ${rpm}`);
}
