import type { ServerResponse } from 'node:http';
import { AppError } from '@dob/domain';
import { comparePositions, type GlobalPosition } from '@dob/event-store';
import { toFeedEvent, type EventFeed, type FeedEntry, type FeedFilter } from '@dob/webhooks';

export interface StreamSettings {
  /** A comment line this often keeps proxies and clients from timing an idle stream out (default 15 s). */
  readonly heartbeatMs: number;
  /** A consumer whose socket takes longer than this to drain is cut, with a reason (default 10 s). */
  readonly slowConsumerMs: number;
  /** The longest a stream waits without re-reading (default 15 s; NOTIFY and the feed's poll usually wake it first). */
  readonly idleReadMs: number;
  /** Open streams per API key on this instance (default 5). */
  readonly maxStreamsPerKey: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = { heartbeatMs: 15_000, slowConsumerMs: 10_000, idleReadMs: 15_000, maxStreamsPerKey: 5 };

const BATCH = 200;

/** The response headers of a stream: SSE, never cached, and proxies (nginx) told not to buffer it. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/** One SSE frame (https://html.spec.whatwg.org/multipage/server-sent-events.html): id = the cursor to resume after it. */
export function frame(e: FeedEntry): string {
  const event = toFeedEvent(e);
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Counts open streams per API key; the one over the limit is refused (429) before the stream starts. */
export class OpenStreams {
  private readonly open = new Map<string, number>();
  constructor(private readonly limit: number) {}

  acquire(keyId: string): () => void {
    const n = this.open.get(keyId) ?? 0;
    if (n >= this.limit) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Too many open event streams for this API key (at most ${this.limit}); close one first`,
        {
          open_streams: n,
          limit: this.limit,
          retry_after_seconds: 5,
        },
        5,
      );
    }
    this.open.set(keyId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(keyId) ?? 1) - 1;
      if (left > 0) this.open.set(keyId, left);
      else this.open.delete(keyId);
    };
  }
}

/**
 * Writes the feed after `start` to an SSE response until the client leaves: every matching entry once, in position
 * order; between bursts it waits until the feed head passes what it has scanned. A consumer that stops reading is
 * cut with an `error` event naming the reason, so memory per stream stays bounded by the socket's buffer.
 */
export async function streamFeed(
  raw: ServerResponse,
  feed: EventFeed,
  start: GlobalPosition,
  filter: FeedFilter,
  settings: StreamSettings,
  abort: AbortSignal,
): Promise<void> {
  let cursor = start;
  raw.write(`retry: 1000\n: connected\n\n`);
  const heartbeat = setInterval(() => raw.writableEnded || raw.write(': heartbeat\n\n'), settings.heartbeatMs);
  try {
    while (!abort.aborted) {
      const head = await feed.latest();
      const entries = await feed.read(cursor, BATCH, filter);
      for (const e of entries) {
        if (abort.aborted) return;
        if (!raw.write(frame(e)) && !(await drained(raw, settings.slowConsumerMs, abort))) {
          if (!abort.aborted) cut(raw, 'SLOW_CONSUMER', `The client did not read the stream for ${settings.slowConsumerMs} ms; reconnect with Last-Event-ID`);
          return;
        }
        cursor = e.position;
      }
      if (entries.length === BATCH) continue;
      // Everything up to `head` was readable when we read: wait for something beyond it.
      await feed.waitBeyond(comparePositions(head, cursor) > 0 ? head : cursor, settings.idleReadMs, abort);
    }
  } catch (e) {
    if (!abort.aborted) cut(raw, 'STREAM_FAILED', 'The stream failed on the server; reconnect with Last-Event-ID');
    throw e;
  } finally {
    clearInterval(heartbeat);
    if (!raw.writableEnded) raw.end();
  }
}

function cut(raw: ServerResponse, code: string, message: string): void {
  if (raw.writableEnded) return;
  raw.end(`event: error\ndata: ${JSON.stringify({ code, message })}\n\n`);
}

function drained(raw: ServerResponse, timeoutMs: number, abort: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      raw.off('drain', onDrain);
      abort.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = () => finish(true);
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    raw.on('drain', onDrain);
    abort.addEventListener('abort', onAbort);
  });
}
