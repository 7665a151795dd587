import { positionToString } from '@dob/event-store';
import type { ProjectionDefinition } from './projection';
import type { ReadModelStore } from './read-model-store.port';

interface CountDoc {
  [field: string]: string | number;
  event_type: string;
  events: number;
  last_position: string;
  last_recorded_at: string;
}

/**
 * Operators' view of the log: how many events of each type, and when the last one was recorded (e.g. "when did
 * we last see a `claimed`?"). Reads every type.
 */
export const eventTypeCountsProjection: ProjectionDefinition = {
  name: 'event_type_counts',
  // v1 still: the reducer writes the same rows the v1 SQL did, into the same columns.
  version: 1,
  eventTypes: [],
  collections: {
    counts: {
      fields: { event_type: 'text', events: 'int8', last_position: 'text', last_recorded_at: 'timestamp' },
      key: ['event_type'],
    },
  },
  async apply(state, e) {
    const current = await state.get<CountDoc>('counts', { event_type: e.type });
    state.put('counts', {
      event_type: e.type,
      events: (current?.events ?? 0) + 1,
      last_position: positionToString(e.position),
      last_recorded_at: e.recordedAt.toISOString(),
    });
  },
};

export interface EventTypeCount {
  readonly eventType: string;
  readonly events: number;
  readonly lastPosition: string;
  readonly lastRecordedAt: Date;
}

/** Reads the serving slot, so it works during a rebuild. Most frequent first. */
export async function readEventTypeCounts(store: ReadModelStore): Promise<EventTypeCount[]> {
  const docs = (await store.documents(eventTypeCountsProjection, 'counts')) as CountDoc[];
  return docs
    .map((r) => ({ eventType: r.event_type, events: r.events, lastPosition: r.last_position, lastRecordedAt: new Date(r.last_recorded_at) }))
    .sort((a, b) => b.events - a.events || (a.eventType < b.eventType ? -1 : a.eventType > b.eventType ? 1 : 0));
}
