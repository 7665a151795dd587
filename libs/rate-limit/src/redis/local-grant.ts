import type { RateLimitDecision } from '../rate-limiter.port';
import { GRANT_LIFETIME_MS } from './admission-grants';

/** Admissions an instance took from Redis in one ADMIT call and hands out locally (admission-grants.ts). */
export class LocalGrant {
  /** Per admission handed out, in order: local ms from sending the grant request (restamped by RETURN). */
  readonly used: number[] = [];
  returned = false;
  timer?: NodeJS.Timeout;

  constructor(
    /** Member names are `${base}.1` … `${base}.${size}`. */
    readonly base: string,
    /** Server time the grant was made at (its members are stamped at + GRANT_LIFETIME_MS until returned). */
    readonly at: number,
    /** Local time (monotonic ms) the grant request was sent: it is usable until sentAt + GRANT_LIFETIME_MS. */
    readonly sentAt: number,
    readonly size: number,
    /** The bucket's shared remaining budget as of the grant, before any of it was used. */
    private budget: number,
    readonly resetAt: number,
    /**
     * The grant this one was refilled ahead of: the script counted all of its members as taken, so those it ends
     * up not using (returned) are budget this grant did not see.
     */
    private refillOf?: LocalGrant,
  ) {}

  usableAt(local: number): boolean {
    return !this.returned && this.used.length < this.size && local - this.sentAt <= GRANT_LIFETIME_MS;
  }

  /**
   * Admits one request locally. `remaining` is exact for this instance (the budget as of the grant minus what this
   * instance used of it) and approximate for the bucket (other instances' use since the grant is not seen).
   */
  take(local: number, rpm: number): RateLimitDecision {
    // Whole ms, rounded up: the restamp stays an upper bound of the admission time (and ≤ the lifetime).
    const elapsed = Math.ceil(local - this.sentAt);
    this.used.push(elapsed);
    return {
      allowed: true,
      limit: rpm,
      remaining: Math.max(0, this.budget + this.unusedOfRefilled() - this.used.length),
      resetAt: this.resetAt,
      retryAfterSeconds: 0,
      decidedAt: this.at + elapsed,
    };
  }

  private unusedOfRefilled(): number {
    const previous = this.refillOf;
    if (!previous) return 0;
    const unused = previous.size - previous.used.length;
    if (previous.returned) {
      // Final once returned: fold it in and let the previous grant go (no chain of grants kept alive).
      this.budget += unused;
      this.refillOf = undefined;
      return 0;
    }
    return unused;
  }

  get usedUp(): boolean {
    return this.used.length >= this.size;
  }
}
