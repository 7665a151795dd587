import type { GlobalPosition } from '../event-store.port';

export const EVENT_COLUMNS =
  'e.position, e.transaction_id::text AS commit, e.stream_id, e.revision, e.event_id, e.type, e.version, e.data, e.metadata, e.recorded_at';

export interface SqlQuery {
  readonly text: string;
  readonly params: unknown[];
}

/**
 * One statement returning a page of $all plus the readable head, both taken from the same snapshot:
 * rows only from transactions below pg_snapshot_xmin(pg_current_snapshot()) — all of them finished, so nothing
 * can still commit in front of what is returned — strictly after `after` in (transaction_id, position) order.
 * The head lets a filtered read move past the events it skipped. `limit + 1` rows are asked for so a cut page is
 * told apart from an exact fit. Every result row carries the head; with no page rows the one row has NULL events.
 */
export function buildReadAllQuery(after: GlobalPosition, limit: number, types?: readonly string[]): SqlQuery {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`maxCount must be a positive integer, got ${limit}`);
  // START is (-1, -1); xid8 has no negative values and no real transaction has id 0, so (0, -1) is below all rows.
  const commit = after.commit < 0n ? '0' : after.commit.toString();
  const params: unknown[] = [commit, after.prepare.toString(), limit + 1];
  let typeFilter = '';
  if (types !== undefined) {
    params.push([...types]);
    typeFilter = `AND e.type = ANY($4::text[])`;
  }
  const text = `
WITH horizon AS MATERIALIZED (
  SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin
), head AS (
  SELECT e.transaction_id, e.position FROM es_events e, horizon h
  WHERE e.transaction_id < h.xmin
  ORDER BY e.transaction_id DESC, e.position DESC LIMIT 1
), page AS (
  SELECT ${EVENT_COLUMNS} FROM es_events e, horizon h
  WHERE e.transaction_id < h.xmin
    AND (e.transaction_id, e.position) > ($1::text::xid8, $2::bigint)
    ${typeFilter}
  ORDER BY e.transaction_id, e.position
  LIMIT $3
)
SELECT head.transaction_id::text AS head_commit, head.position AS head_prepare, page.*
FROM head LEFT JOIN page ON true
ORDER BY page.commit::xid8, page.position`;
  return { text, params };
}

export const HEAD_SQL = `
SELECT e.transaction_id::text AS commit, e.position FROM es_events e
WHERE e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY e.transaction_id DESC, e.position DESC LIMIT 1`;
