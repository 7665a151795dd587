import type { SqlDatabase } from '@dob/sql';
import { START, type EventStoreStats, type GlobalPosition } from '../event-store.port';
import { isAfter } from '../position';
import { positionParams } from './read-all-query';

/**
 * Counts the range (after, upTo] of $all per type, and the streams it starts (every stream has exactly one event at
 * revision 0: revisions are gapless from 0 and events are never removed).
 */
const COUNT_RANGE_SQL = `
SELECT type, count(*) AS n, count(*) FILTER (WHERE revision = 0) AS first FROM es_events
WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint) AND (transaction_id, position) <= ($3::text::xid8, $4::bigint)
GROUP BY type`;

/**
 * stats() for the SQL event store, counting each event once per process. Counting all of es_events on every call
 * (one GROUP BY over the table) cost a scan of the whole history per call: status reports, the metrics that scrape
 * them and every wait that polls them called it several times a second, and at 1,000,000 events each scan is a
 * sizeable fraction of a second. Counts up to the gap-safe head are final — nothing can still commit below it — so
 * a call counts only the events between the head it counted last time and the head now: a range of the
 * (transaction_id, position) index, empty while nothing is appended. The counts are of the events up to `last`.
 */
export class EventCounts {
  private counted: EventStoreStats = { events: 0, streams: 0, last: START, byType: {} };
  /** One count at a time: each starts from the one before it. */
  private queue: Promise<unknown> = Promise.resolve();

  /** `head`: the store's gap-safe head (SqlEventStore.headPosition). */
  constructor(
    private readonly db: SqlDatabase,
    private readonly head: () => Promise<GlobalPosition>,
  ) {}

  stats(): Promise<EventStoreStats> {
    const next = this.queue.then(() => this.countUpToHead());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async countUpToHead(): Promise<EventStoreStats> {
    const last = await this.head();
    const was = this.counted;
    if (!isAfter(last, was.last)) return was;
    const { rows } = await this.db.query<{ type: string; n: string; first: string }>(COUNT_RANGE_SQL, [...positionParams(was.last), ...positionParams(last)]);
    const byType = { ...was.byType };
    let { events, streams } = was;
    for (const r of rows) {
      byType[r.type] = (byType[r.type] ?? 0) + Number(r.n);
      events += Number(r.n);
      streams += Number(r.first);
    }
    // Types in order (callers list them as counted); frozen: every caller gets this object until the next append.
    const sorted = Object.fromEntries(Object.entries(byType).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    this.counted = Object.freeze({ events, streams, last, byType: Object.freeze(sorted) });
    return this.counted;
  }
}
