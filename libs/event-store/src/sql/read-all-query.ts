import type { GlobalPosition } from '../event-store.port';

/**
 * The recording time as milliseconds since the epoch (float8, floored as a JavaScript Date truncates): parsing the
 * timestamptz text into a Date (postgres-date's regular expression) was 6 % of reading the whole history.
 */
export const EVENT_COLUMNS =
  'e.position, e.transaction_id::text AS commit, e.stream_id, e.revision, e.event_id, e.type, e.version, e.data, ' +
  // Nearly every event's metadata is empty: NULL costs the reader no string to decode and no JSON to parse.
  "NULLIF(e.metadata, '{}'::jsonb) AS metadata, " +
  'floor(extract(epoch FROM e.recorded_at) * 1000)::float8 AS recorded_ms';

export interface SqlQuery {
  readonly text: string;
  readonly params: unknown[];
}

/**
 * A position as the ($n::text::xid8, $n::bigint) pair of a row comparison on (transaction_id, position). START is
 * (-1, -1); xid8 has no negative values and no real transaction has id 0, so (0, -1) is below all rows.
 */
export function positionParams(p: GlobalPosition): [commit: string, prepare: string] {
  return [p.commit < 0n ? '0' : p.commit.toString(), p.prepare.toString()];
}

/**
 * One statement returning a page of $all plus the readable head, both taken from the same snapshot:
 * rows only from transactions below pg_snapshot_xmin(pg_current_snapshot()) — all of them finished, so nothing
 * can still commit in front of what is returned — strictly after `after` in (transaction_id, position) order.
 * The head lets a filtered read move past the events it skipped. `limit + 1` rows are asked for so a cut page is
 * told apart from an exact fit. The last result row carries the head (the others NULL: two fewer fields to decode on
 * every row of a long read); with no page rows the one row has NULL events.
 * A filtered read walks one ordered range of es_events_type_order_idx per type and merges them (see below): its
 * cost is the matches it returns, not the rows of $all between them.
 */
export function buildReadAllQuery(after: GlobalPosition, limit: number, types?: readonly string[]): SqlQuery {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`maxCount must be a positive integer, got ${limit}`);
  const params: unknown[] = [...positionParams(after), limit + 1];
  // The next rows after `after` are walked in index order (LIMIT), and only then held against the horizon: with
  // the horizon (an unknown value to the planner) inside the scan, PostgreSQL estimated a third of the table, chose
  // a bitmap scan of every later row and sorted them all, so each page cost the rest of the history. Rows of
  // transactions at or past the horizon sort after every readable row, so dropping them afterwards only ends the
  // page early, at the head.
  const after$ = '(e.transaction_id, e.position) > ($1::text::xid8, $2::bigint)';
  // A filtered read: one branch per type, each an ordered range of es_events_type_order_idx (type, transaction_id,
  // position) cut at limit + 1, merged in order (PostgreSQL plans a Merge Append and stops at the LIMIT), so a page
  // costs its matches. The scan of $all this replaced walked every row between them, for every projection — 42 % of
  // PostgreSQL's CPU in a rebuild of all eight read models over a 200,000-event history (9.3 s; the merged ranges
  // 3.5 s, docs/benchmarks-journal.md "Sixth look").
  const range = (condition: string) => `(SELECT e.transaction_id, e.position FROM es_events e
    WHERE ${condition}
    ORDER BY e.transaction_id, e.position LIMIT $3)`;
  const ranges =
    types === undefined
      ? [range(after$)]
      : [...new Set(types)].map((type) => {
          params.push(type);
          return range(`e.type = $${params.length}::text AND ${after$}`);
        });
  const rows = ranges.length ? ranges.join('\n  UNION ALL ') : 'SELECT NULL::xid8 AS transaction_id, NULL::bigint AS position WHERE false';
  const text = `
WITH horizon AS MATERIALIZED (
  SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin
), head AS (
  SELECT e.transaction_id, e.position FROM es_events e, horizon h
  WHERE e.transaction_id < h.xmin
  ORDER BY e.transaction_id DESC, e.position DESC LIMIT 1
), matched AS MATERIALIZED (
  SELECT u.transaction_id, u.position FROM (${rows}) u
  ORDER BY u.transaction_id, u.position
  LIMIT $3
), page AS (
  SELECT ${EVENT_COLUMNS} FROM matched m JOIN es_events e ON e.position = m.position, horizon h
  WHERE m.transaction_id < h.xmin
)
SELECT page.*,
  CASE WHEN lead(page.position) OVER w IS NULL THEN head.transaction_id::text END AS head_commit,
  CASE WHEN lead(page.position) OVER w IS NULL THEN head.position END AS head_prepare
FROM head LEFT JOIN page ON true
WINDOW w AS (ORDER BY page.commit::xid8, page.position)
ORDER BY page.commit::xid8, page.position`;
  return { text, params };
}

export const HEAD_SQL = `
SELECT e.transaction_id::text AS commit, e.position FROM es_events e
WHERE e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY e.transaction_id DESC, e.position DESC LIMIT 1`;
