import type { SqlDatabase } from '@dob/sql';
import { START, type EventStoreStats, type GlobalPosition } from '../event-store.port';
import { isAfter, position } from '../position';
import { HEAD_SQL } from './read-all-query';

/**
 * Counts the range (after, upTo] of $all per type, and the streams it starts (every stream has exactly one event at
 * revision 0: revisions are gapless from 0 and events are never removed). START is (-1, -1); xid8 has no negative
 * values, so (0, -1) is below every row.
 */
const COUNT_RANGE_SQL = `
SELECT type, count(*) AS n, count(*) FILTER (WHERE revision = 0) AS first FROM es_events
WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint) AND (transaction_id, position) <= ($3::text::xid8, $4::bigint)
GROUP BY type`;

interface Counted {
  readonly last: GlobalPosition;
  readonly byType: ReadonlyMap<string, { n: number; first: number }>;
}

/**
 * stats() for the SQL event store, counting each event once per process. Counting all of es_events on every call
 * (one GROUP BY over the table) cost a scan of the whole history per call: status reports, the metrics that scrape
 * them and every wait that polls them called it several times a second, and at 1,000,000 events each scan is a
 * sizeable fraction of a second. Counts up to the gap-safe head are final — nothing can still commit below it — so
 * a call counts only the events between the head it counted last time and the head now: a range of the
 * (transaction_id, position) index, empty while nothing is appended. The counts are of the events up to `last`.
 */
export class EventCounts {
  private counted: Counted = { last: START, byType: new Map() };
  /** One count at a time: each starts from the one before it. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: SqlDatabase) {}

  stats(): Promise<EventStoreStats> {
    const next = this.queue.then(() => this.countUpToHead());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async countUpToHead(): Promise<EventStoreStats> {
    const { rows: head } = await this.db.query<{ commit: string; position: string }>(HEAD_SQL);
    const last = head.length === 0 ? START : position(head[0]!.commit, head[0]!.position);
    if (isAfter(last, this.counted.last)) {
      const from = this.counted.last;
      const { rows } = await this.db.query<{ type: string; n: string; first: string }>(COUNT_RANGE_SQL, [
        from.commit < 0n ? '0' : from.commit.toString(),
        from.prepare.toString(),
        last.commit.toString(),
        last.prepare.toString(),
      ]);
      const byType = new Map(this.counted.byType);
      for (const r of rows) {
        const was = byType.get(r.type) ?? { n: 0, first: 0 };
        byType.set(r.type, { n: was.n + Number(r.n), first: was.first + Number(r.first) });
      }
      this.counted = { last, byType };
    }
    const byType: Record<string, number> = {};
    let events = 0;
    let streams = 0;
    for (const [type, c] of [...this.counted.byType].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      byType[type] = c.n;
      events += c.n;
      streams += c.first;
    }
    return { events, streams, last: this.counted.last, byType };
  }
}
