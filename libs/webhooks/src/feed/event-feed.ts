import { AppError } from '@dob/domain';
import { comparePositions, positionFromString, positionToString, START, type GlobalPosition } from '@dob/event-store';
import type { SqlDatabase } from '@dob/sql';
import { isWebhookEventName, WEBHOOK_EVENTS } from '../webhook-events';
import { FEED_CHANNEL, SqlFeedLog, type FeedEntry, type FeedFilter } from './feed-log';

/** What an agent sees of one feed entry: the webhook payload of its type, `id` = the cursor to resume after it. */
export interface FeedEvent {
  readonly id: string;
  readonly event: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

export interface FeedPage {
  readonly events: FeedEvent[];
  /** Pass as `after` (or Last-Event-ID) to continue; unchanged when nothing new matched. */
  readonly next_cursor: string;
  readonly has_more: boolean;
}

export interface EventFeedOptions {
  readonly db: SqlDatabase;
  /** The head of $all: a cursor beyond it was never handed out (a "future" cursor is refused). */
  readonly eventStore: { headPosition(): Promise<GlobalPosition> };
  /** Fallback re-read of the feed head when no NOTIFY arrives (default 1 s): the signal is a hint, the poll is the guarantee. */
  readonly pollIntervalMs?: number;
}

export const MAX_FEED_PAGE = 500;

/** A page request's parameters as an agent sends them (`mine` = only events naming the caller's wallet). */
export interface FeedPageRequest {
  readonly after?: string;
  readonly limit?: number;
  readonly types?: string;
  readonly pools?: string;
  readonly mine?: boolean;
}

export const toFeedEvent = (e: FeedEntry): FeedEvent => ({ id: positionToString(e.position), event: e.event, timestamp: e.timestamp, data: e.data });

/**
 * The agents' event feed: the webhook notifications in $all order, resumable by position from any API instance
 * (they share the table), as pages or followed live. One LISTEN and one head poll per instance, however many
 * streams are open: each stream waits until the head passes what it already scanned.
 */
export class EventFeed {
  private readonly log: SqlFeedLog;
  private head: GlobalPosition = START;
  private readonly waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly o: EventFeedOptions) {
    this.log = new SqlFeedLog(o.db);
  }

  /** `after` as sent by a client: absent = the beginning; malformed → 400; older than kept → 410; beyond $all → 400. */
  async cursor(text: string | undefined): Promise<GlobalPosition> {
    if (text === undefined || text === '') return START;
    let p: GlobalPosition;
    try {
      p = positionFromString(text);
    } catch {
      throw AppError.validation(`Malformed cursor ${JSON.stringify(text.slice(0, 64))}: use an event id ("commit:prepare") from this feed`);
    }
    const horizon = await this.log.horizon();
    if (horizon && comparePositions(p, horizon) < 0) {
      throw new AppError('CURSOR_EXPIRED', 'This cursor is older than the events the feed keeps; resume from oldest_cursor', {
        oldest_cursor: positionToString(horizon),
      });
    }
    if (comparePositions(p, await this.o.eventStore.headPosition()) > 0) {
      throw AppError.validation('Cursor is ahead of every event recorded: use an event id this feed returned');
    }
    return p;
  }

  /** Where a live stream without a cursor starts: after the newest event (only what happens from now on). */
  async now(): Promise<GlobalPosition> {
    return (await this.log.head()) ?? START;
  }

  /** `types` as a comma-separated list of webhook event names; an unknown name → 400 naming the valid ones. */
  static filter(q: { types?: string; pools?: string; mine?: boolean }, wallet: string): FeedFilter {
    const list = (csv: string | undefined) =>
      (csv ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    const types = list(q.types);
    const unknown = types.filter((t) => !isWebhookEventName(t));
    if (unknown.length) throw AppError.validation(`Unknown event type(s) ${unknown.join(', ')}; valid: ${WEBHOOK_EVENTS.join(', ')}`);
    return { types, pools: list(q.pools), ...(q.mine ? { party: wallet } : {}) };
  }

  async read(after: GlobalPosition, limit: number, filter: FeedFilter): Promise<FeedEntry[]> {
    return this.log.after(after, limit, filter);
  }

  /** One page as an agent asks for it (GET /events): its cursor checked, its filters parsed, 100 events by default. */
  async pageFor(wallet: string, request: FeedPageRequest): Promise<FeedPage> {
    const filter = EventFeed.filter(request, wallet);
    return this.page(await this.cursor(request.after), request.limit ?? 100, filter);
  }

  async page(after: GlobalPosition, limit: number, filter: FeedFilter): Promise<FeedPage> {
    const entries = await this.log.after(after, limit + 1, filter);
    const events = entries.slice(0, limit).map(toFeedEvent);
    return { events, next_cursor: events.length ? events[events.length - 1]!.id : positionToString(after), has_more: entries.length > limit };
  }

  /** The feed head as last seen (refreshed by NOTIFY and the poll). */
  async latest(): Promise<GlobalPosition> {
    await this.start();
    return this.head;
  }

  /** Resolves once the head is past `scanned`, or after `timeoutMs` (every wait is bounded). */
  async waitBeyond(scanned: GlobalPosition, timeoutMs: number, abort?: AbortSignal): Promise<void> {
    await this.start();
    if (comparePositions(this.head, scanned) > 0 || abort?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        abort?.removeEventListener('abort', done);
        resolve();
      };
      const check = () => {
        if (comparePositions(this.head, scanned) > 0) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(check);
      abort?.addEventListener('abort', done);
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.unlisten?.().catch(() => undefined);
    this.unlisten = undefined;
    for (const w of [...this.waiters]) w();
  }

  private async start(): Promise<void> {
    if (this.timer) return this.refreshing;
    this.timer = setInterval(() => void this.refresh(), this.o.pollIntervalMs ?? 1000);
    this.timer.unref();
    this.refreshing = (async () => {
      this.unlisten = await this.o.db.listen(FEED_CHANNEL, () => void this.refresh()).catch(() => undefined);
      await this.refresh();
    })();
    return this.refreshing;
  }

  private async refresh(): Promise<void> {
    const head = await this.log.head().catch(() => null);
    if (!head || comparePositions(head, this.head) <= 0) return;
    this.head = head;
    for (const w of [...this.waiters]) w();
  }
}
