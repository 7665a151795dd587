import { isAfter, type EventStore, type GlobalPosition } from '@dob/event-store';
import { RELAYED_EVENT_TYPES } from '../analyst-topics';
import { toAnalystMessage, type AnalystMessage } from '../cloud-event';
import type { EventPublisher } from '../event-publisher.port';

export interface ReplayOptions {
  readonly events: EventStore;
  readonly publisher: EventPublisher;
  /** Exclusive lower bound (`START` = from the first event). */
  readonly after: GlobalPosition;
  /** Inclusive upper bound. */
  readonly upTo: GlobalPosition;
  readonly topicPrefix?: string;
  readonly batchSize?: number;
  readonly onProgress?: (progress: { readonly published: number; readonly position: GlobalPosition }) => void;
}

/**
 * Re-publishes a range of the event store, exactly as the relay first published it (same topic, key, value and
 * CloudEvents id), one acknowledged batch after another. It leaves the relay's checkpoint alone: consumers see
 * the range again and deduplicate on the id. A broker failure stops it with the error; run it again (or from the
 * position it reached) — every batch it did finish is on the broker.
 */
export async function replayRange(o: ReplayOptions): Promise<{ published: number; last: GlobalPosition }> {
  let after = o.after;
  let published = 0;
  for (;;) {
    const page = await o.events.readAll({ after, maxCount: o.batchSize ?? 500, types: RELAYED_EVENT_TYPES });
    const inRange = page.events.filter((e) => !isAfter(e.position, o.upTo));
    const messages = inRange.map((e) => toAnalystMessage(e, o.topicPrefix)).filter((m): m is AnalystMessage => m !== null);
    await o.publisher.publish(messages);
    published += messages.length;
    const reachedEnd = inRange.length < page.events.length || !page.hasMore || isAfter(page.last, o.upTo);
    // A store may end a filtered page with few events or none (the port allows it): read on from where it ended.
    after = reachedEnd ? (inRange.at(-1)?.position ?? after) : page.last;
    o.onProgress?.({ published, position: after });
    if (reachedEnd) return { published, last: after };
  }
}
