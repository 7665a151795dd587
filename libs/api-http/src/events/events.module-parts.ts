import type { Provider, Type } from '@nestjs/common';
import { EventFeed } from '@dob/webhooks';
import { EventsController, STREAM_SETTINGS } from './events.controller';
import { eventsHandlers } from './events.handlers';
import { DEFAULT_STREAM_SETTINGS, type StreamSettings } from './sse-stream';

/** What the API needs to serve the event feed: the feed over the shared store, and the stream limits. */
export interface EventFeedDependencies {
  readonly feed: EventFeed;
  readonly stream?: Partial<StreamSettings>;
}

/** The feed's controller and providers (its query handler among them); none when the host gives no feed. */
export function eventFeedApiParts(deps?: EventFeedDependencies): { controllers: Type[]; providers: Provider[] } {
  if (!deps) return { controllers: [], providers: [] };
  return {
    controllers: [EventsController],
    providers: [
      { provide: EventFeed, useValue: deps.feed },
      { provide: STREAM_SETTINGS, useValue: { ...DEFAULT_STREAM_SETTINGS, ...deps.stream } },
      ...eventsHandlers,
    ],
  };
}
