import { EventFeed } from '@dob/webhooks';
import { queryHandler } from '../cqrs/message-handler';
import type { FeedPageRequest } from '@dob/webhooks';

/** A page of the agents' event feed after a cursor, with the request's filters (`mine` = events naming `wallet`). */
export class ReadEventFeedQuery {
  constructor(
    readonly wallet: string,
    readonly request: FeedPageRequest,
  ) {}
}

/** The feed's one query: the cursor checked, the filters parsed and the page read by EventFeed.pageFor. */
export const eventsHandlers = [queryHandler(ReadEventFeedQuery, EventFeed, (feed: EventFeed, q) => feed.pageFor(q.wallet, q.request))];
