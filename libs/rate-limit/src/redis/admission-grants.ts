import { capacity, WINDOW_MS } from '../sliding-window-rule';

/**
 * Admission grants: how RedisRateLimiter takes busy buckets off the per-request Redis round trip without giving up
 * the rule of docs/decisions.md#d8 (docs/auth.md, "Admission grants").
 *
 * An instance asks ADMIT (sliding-window.lua.ts) for n admissions at server time t. The script counts every member
 * with score ≥ t − 60 s (future scores included), grants k = min(n, cap − margin − count) members stamped t + G, and
 * the instance admits up to k requests locally until (its local time when it SENT the request) + G. Then it returns
 * the grant: used members are restamped to t + (ms from sending to each admission), unused ones removed. Every
 * admission's real time τ therefore lies in [t, stamp] (it cannot happen before the script ran, and the script ran
 * after the request was sent, so t + elapsed-since-sending ≥ τ whatever the skew between the two clocks); the
 * stamp only moves down, never below τ.
 *
 * 1. No closed 60-s window [a, a + 60 s] admits more than rpm + 10, across instances. Let S be the last script
 *    (at server time t*) whose admissions include one in the window, at τ* ≥ t*; so a ≥ τ* − 60 s ≥ t* − 60 s. Every
 *    admission in the window from an earlier script has stamp ≥ τ ≥ a ≥ t* − 60 s, so S counted it (a used member
 *    is never removed, a stamp never drops below its admission, pruning only drops stamps < t* − 60 s). S admits at
 *    most cap − count (a grant at most cap − margin − count, a single admission only if count < cap), so the window
 *    holds ≤ cap = rpm + 10. Grants are just earlier stamps on the same log, so single admissions and grants mix.
 * 2. A client pacing at rpm/60 per second (on the limiter's clock: script times and the restamped times) is never
 *    refused. A refusal happens only in a script that found count ≥ cap. (i) If no grant was issued in the last
 *    G + R ms (R: how late a return may land, covered by GRANT_RETURN_ALLOWANCE_MS), every grant is returned, every
 *    stamp is an admission time, and [t − 60 s, t) holds ≤ rpm of the client's admissions: count ≤ rpm < cap, as in
 *    the exact rule. (ii) Otherwise let g be the last grant, at t_g ≥ t − G − R. At t_g, count_g + k_g ≤ cap − margin;
 *    since then the set only lost members or had scores lowered, except single admissions after t_g, of which the
 *    pacing client makes ≤ ceil(rpm (G + R) / 60 s) in (t_g, t). With margin > that number, count < cap.
 *    (An instance that dies holding grants never returns them: their unused members count until they leave the
 *    window, ≤ cap / 10, since a grant and its refill ahead together stay within grantCeiling.)
 * Refills ahead (refillAheadSize) change none of this: each is a grant the script sizes against the whole log, and
 * one that finds no room admits no one (grant-only), so the single admissions of (ii) are still requests' own.
 */

/** Buckets below this rpm decide every request in Redis (one script each, exact shared `remaining`). */
export const GRANT_MIN_RPM = 600;
/** How long an instance may admit from a grant, counted from sending the grant request (local monotonic clock). */
export const GRANT_LIFETIME_MS = 100;
/** The bound R of the proof: a return sent at expiry reaches Redis within this (an event-loop stall past it only
 * risks a pacing client meeting the margin early, never the cap). */
export const GRANT_RETURN_ALLOWANCE_MS = GRANT_LIFETIME_MS;
/** Largest grant: one instance cannot hoard more than a tenth of a bucket's budget. */
export const GRANT_MAX = 1000;

export function grantsApply(rpm: number): boolean {
  return rpm >= GRANT_MIN_RPM;
}

export function grantCeiling(rpm: number): number {
  return Math.max(1, Math.min(GRANT_MAX, Math.floor(capacity(rpm) / 10)));
}

/** Slots at the top of the window that grants leave to single admissions (invariant 2 above). */
export function grantMargin(rpm: number): number {
  return Math.ceil((rpm * (GRANT_LIFETIME_MS + GRANT_RETURN_ALLOWANCE_MS)) / WINDOW_MS) + 1;
}

/**
 * The next grant's size from how the last one went: used up in under half its lifetime → double it; otherwise
 * what was used (this instance's demand over one lifetime).
 */
export function nextGrantSize(granted: number, used: number, usedUpAfterMs: number | undefined, rpm: number): number {
  const next = usedUpAfterMs !== undefined && usedUpAfterMs < GRANT_LIFETIME_MS / 2 ? granted * 2 : used;
  return clampGrant(next, rpm);
}

/** 1 … grantCeiling(rpm). */
export function clampGrant(n: number, rpm: number): number {
  return Math.max(1, Math.min(grantCeiling(rpm), n));
}

/**
 * Refill ahead: the size of the next grant to request while the one in use still serves (0: not yet). Due when a
 * quarter of its members are left, or three quarters of its lifetime are gone with half of it used — so a busy
 * bucket's requests do not all stall on the refill's round trip (docs/benchmarks-journal.md "Key guard, fourth look"). The
 * refill is sized so the two grants together stay within the ceiling: an instance still never holds more than a
 * tenth of the budget unused, and every grant is still sized by the script against the whole log (invariant 1).
 * Plain numbers, no options object: it runs on every admission taken from a grant.
 */
export function refillAheadSize(size: number, used: number, ageMs: number, nextSize: number, rpm: number): number {
  const remaining = size - used;
  const due = remaining <= Math.floor(size / 4) || (ageMs >= (GRANT_LIFETIME_MS * 3) / 4 && used * 2 >= size);
  if (!due || remaining <= 0) return 0;
  const room = grantCeiling(rpm) - remaining;
  return room < 1 ? 0 : Math.min(room, clampGrant(Math.max(nextSize, size), rpm));
}
