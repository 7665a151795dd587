import type { SqlExecutor } from '@dob/sql';
import { V } from './views';

/**
 * A round's status depends on the clock only through two comparisons (ROUND_STATUS_SQL): `claimable_from > now` and
 * `expires_at < now`. So every instant strictly between two consecutive boundaries (the rounds' claimable_from and
 * expires_at values) gives every round the same status, and so does each boundary itself. A query whose only use of
 * `now` is round status can therefore run with a canonical instant of the interval `now` falls in instead of `now`
 * itself: same rows, and the read-result cache (which keys on the parameters) can answer it again until the next
 * boundary passes or the read models change. Without this `GET /portfolio/holdings` never hit the cache (its `now`
 * moves every millisecond; docs/benchmarks-journal.md "Fixed-rate mixed load").
 *
 * Boundaries are compared in whole microseconds (PostgreSQL's timestamp resolution); `now` has milliseconds.
 */
export function canonicalStatusInstant(boundariesUs: readonly bigint[], now: Date): string {
  const t = BigInt(now.getTime()) * 1000n;
  const lo = countAtOrBelow(boundariesUs, t);
  const below = lo > 0 ? boundariesUs[lo - 1]! : undefined;
  if (below === t) return isoMicros(t); // on a boundary: that boundary is its own class
  const next = lo < boundariesUs.length ? boundariesUs[lo]! : undefined;
  // Strictly between `below` and `next`: the first microsecond after `below` (or the epoch's start if none is below).
  const canonical = below === undefined ? (next !== undefined && next <= 0n ? t : 0n) : below + 1n;
  return next !== undefined && canonical >= next ? isoMicros(t) : isoMicros(canonical);
}

/** How many of the sorted, distinct boundaries are ≤ t (binary search); boundaries[result - 1] is the last of them. */
export function countAtOrBelow(boundariesUs: readonly bigint[], t: bigint): number {
  let lo = 0;
  let hi = boundariesUs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (boundariesUs[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** ISO 8601 UTC with microseconds, which `::timestamptz` reads exactly. */
export function isoMicros(us: bigint): string {
  const ms = us / 1000n - (us % 1000n < 0n ? 1n : 0n);
  const micros = us - ms * 1000n;
  return new Date(Number(ms)).toISOString().replace('Z', `${micros.toString().padStart(3, '0')}Z`);
}

/** Every distinct round boundary, ascending, in microseconds since the epoch (one cached query). */
export async function roundBoundaries(db: SqlExecutor): Promise<bigint[]> {
  const { rows } = await db.query<{ us: string }>(
    `SELECT (extract(epoch FROM b.t) * 1000000)::bigint::text AS us
       FROM (SELECT claimable_from AS t FROM ${V.rounds} UNION SELECT expires_at FROM ${V.rounds} WHERE expires_at IS NOT NULL) b
      WHERE b.t IS NOT NULL
      ORDER BY b.t`,
  );
  return rows.map((r) => BigInt(r.us));
}
