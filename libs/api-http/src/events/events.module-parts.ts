import type { Provider, Type } from '@nestjs/common';
import { EventFeed, ReadEventFeedHandler, ReadEventFeedQuery } from '@dob/webhooks';
import { query, type MessageBinding } from '../cqrs/message-bindings';
import { EventsController, STREAM_SETTINGS } from './events.controller';
import { DEFAULT_STREAM_SETTINGS, type StreamSettings } from './sse-stream';

/** What the API needs to serve the event feed: the feed over the shared store, and the stream limits. */
export interface EventFeedDependencies {
  readonly feed: EventFeed;
  readonly stream?: Partial<StreamSettings>;
}

/** The feed's controller, its query binding and its providers; none when the host gives no feed. */
export function eventFeedApiParts(deps?: EventFeedDependencies): { controllers: Type[]; providers: Provider[]; bindings: MessageBinding[] } {
  if (!deps) return { controllers: [], providers: [], bindings: [] };
  return {
    controllers: [EventsController],
    providers: [
      { provide: EventFeed, useValue: deps.feed },
      { provide: STREAM_SETTINGS, useValue: { ...DEFAULT_STREAM_SETTINGS, ...deps.stream } },
    ],
    bindings: [query(ReadEventFeedQuery, new ReadEventFeedHandler(deps.feed))],
  };
}
