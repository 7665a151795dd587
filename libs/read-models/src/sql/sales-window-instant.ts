import type { SqlExecutor } from '@dob/sql';
import { countAtOrBelow, isoMicros } from './round-status-instant';
import { V } from './views';

const HOUR_US = 3_600_000_000n;

/** The market-stats volume windows, in whole hours so the answer does not depend on the session's time zone. */
export const SALES_WINDOWS = { v24: 24, v7: 24 * 7, v30: 24 * 30 } as const;

/**
 * A pool's volumes depend on the clock only through `sold_at > now − w`, i.e. `now < sold_at + w`, for each window
 * w: that comparison flips exactly at now = sold_at + w. With the boundaries (every sold_at + w) sorted, every
 * instant in [b_i, b_i+1) gives every sale the same membership in every window, hence the same sums; so the query can
 * run with the class's first instant, b_i (or the epoch, below every boundary), instead of `now`, and the read-result
 * cache (keyed on the parameters) answers it again until the next boundary passes or the read models change.
 * Without this `GET /marketplace/stats/:pool` went to the database on every request (its `now` moves every
 * millisecond): on embedded PGlite that is a synchronous query per request on the event loop (docs/benchmarks-journal.md,
 * "Mixed load: the tail"). Same idea as round-status-instant.ts.
 */
export function canonicalSalesInstant(boundariesUs: readonly bigint[], now: Date): string {
  const below = countAtOrBelow(boundariesUs, BigInt(now.getTime()) * 1000n);
  return isoMicros(below > 0 ? boundariesUs[below - 1]! : 0n);
}

/** Every sold_at + w (µs), sorted and distinct. */
export function salesBoundaries(soldAtUs: readonly bigint[]): bigint[] {
  const all = new Set<bigint>();
  for (const hours of Object.values(SALES_WINDOWS)) for (const s of soldAtUs) all.add(s + BigInt(hours) * HOUR_US);
  return [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The pool's boundaries, from one query the read-result cache keeps until the read models change; sorted once per
 * result (its rows are the same frozen array until then).
 */
export function poolSalesBoundaries(db: SqlExecutor): (networkId: number, pool: string) => Promise<readonly bigint[]> {
  const sorted = new WeakMap<readonly unknown[], readonly bigint[]>();
  return async (networkId, pool) => {
    const { rows } = await db.query<{ us: string }>(
      `SELECT (extract(epoch FROM sold_at) * 1000000)::bigint::text AS us FROM ${V.sales}
        WHERE network_id = $1 AND pool = $2 AND sold_at IS NOT NULL`,
      [networkId, pool],
    );
    let boundaries = sorted.get(rows);
    if (!boundaries) {
      boundaries = salesBoundaries(rows.map((r) => BigInt(r.us)));
      sorted.set(rows, boundaries);
    }
    return boundaries;
  };
}
