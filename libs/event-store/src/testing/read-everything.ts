import type { EventStore, RecordedEvent } from '../event-store.port';

/**
 * Every event of `$all`, in order, as a reader pages through it (tests comparing a whole log). Follows `hasMore`,
 * so a filtered or window-cut page with few or no events does not end the read early.
 */
export async function readEverything(store: Pick<EventStore, 'readAll'>, pageSize = 5_000): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (let after: RecordedEvent['position'] | undefined; ;) {
    const page = await store.readAll({ after, maxCount: pageSize });
    out.push(...page.events);
    after = page.last;
    if (!page.hasMore) return out;
  }
}
