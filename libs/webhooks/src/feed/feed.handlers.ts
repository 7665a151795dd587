import type { EventFeed, FeedPage } from './event-feed';
import { EventFeed as Feed } from './event-feed';

/** A page of the agents' event feed after a cursor, with the request's filters (`mine` = events naming `wallet`). */
export class ReadEventFeedQuery {
  constructor(
    readonly wallet: string,
    readonly request: { after?: string; limit?: number; types?: string; pools?: string; mine?: boolean },
  ) {}
}

export class ReadEventFeedHandler {
  constructor(private readonly feed: EventFeed) {}
  async execute(q: ReadEventFeedQuery): Promise<FeedPage> {
    const filter = Feed.filter(q.request, q.wallet);
    const after = await this.feed.cursor(q.request.after);
    return this.feed.page(after, q.request.limit ?? 100, filter);
  }
}
