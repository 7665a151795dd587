import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Client } from 'openapi-fetch';
import { agentApiError, unwrap } from './errors';
import type { paths } from './generated/openapi';

/** What the feed needs of an AgentClient (declared here so client.ts can mount `events` without an import cycle). */
export interface FeedTransport {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  apiKey(): string | undefined;
  /** The client's fetch without openapi-fetch (a stream is not one JSON body). */
  readonly fetch: (request: Request) => Promise<Response>;
}

/** One feed event: the webhook payload of its type, `id` the cursor to resume after it. */
export interface FeedEvent {
  readonly id: string;
  readonly event: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

export interface EventFilter {
  /** Webhook event names, e.g. ['marketplace_sale_completed']; default all. */
  readonly types?: readonly string[];
  readonly pools?: readonly string[];
  /** Only events naming the API key's wallet. */
  readonly mine?: boolean;
  /** Resume after this event id (the stream's default is "from now", the pages' "from the oldest kept"). */
  readonly after?: string;
}

export interface StreamOptions {
  readonly signal?: AbortSignal;
  /** Wait before reconnecting after the stream ended or the network failed (default 1 s, or the server's `retry:`). */
  readonly reconnectDelayMs?: number;
}

const STREAM_PATH = '/api/agent/events/stream';

function query(f: EventFilter): Record<string, string> {
  return {
    ...(f.types?.length ? { types: f.types.join(',') } : {}),
    ...(f.pools?.length ? { pools: f.pools.join(',') } : {}),
    ...(f.mine ? { mine: 'true' } : {}),
  };
}

/** One page of the feed after a cursor (GET /events). */
export async function eventsPage(client: FeedTransport, filter: EventFilter & { limit?: number } = {}) {
  const q = { ...query(filter), ...(filter.after ? { after: filter.after } : {}), ...(filter.limit ? { limit: filter.limit } : {}) };
  return (await unwrap(client.api.GET('/api/agent/events', { params: { query: q } }))).data;
}

/**
 * The live feed as an async iterable (Server-Sent Events, https://html.spec.whatwg.org/multipage/server-sent-events.html,
 * parsed by eventsource-parser). It reconnects by itself after a network failure, a server restart or a
 * SLOW_CONSUMER cut, sending the last id it yielded as Last-Event-ID: the API resumes right after it, on any
 * instance, so nothing is missed or repeated. Refusals (bad filter, expired cursor) throw AgentApiError; 429/503 are
 * waited out. Stop by `break` or the abort signal.
 */
export async function* streamEvents(client: FeedTransport, filter: EventFilter = {}, options: StreamOptions = {}): AsyncGenerator<FeedEvent> {
  let cursor = filter.after;
  let delay = options.reconnectDelayMs ?? 1000;
  const url = new URL(client.baseUrl + STREAM_PATH);
  for (const [k, v] of Object.entries(query(filter))) url.searchParams.set(k, v);
  while (!options.signal?.aborted) {
    const abort = new AbortController();
    const stop = () => abort.abort();
    options.signal?.addEventListener('abort', stop);
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      const key = client.apiKey();
      if (key) headers['x-api-key'] = key;
      if (cursor) headers['last-event-id'] = cursor;
      const res = await client.fetch(new Request(url, { headers, signal: abort.signal }));
      if (!res.ok) {
        const error = agentApiError(res.status, await res.json().catch(() => null), res.headers.get('retry-after'));
        if (res.status !== 429 && res.status !== 503) throw error;
        await sleep((error.retryAfterSeconds ?? 1) * 1000, options.signal);
        continue;
      }
      const pending: FeedEvent[] = [];
      const parser = createParser({
        onEvent: (m: EventSourceMessage) => {
          if (m.event === 'error') return; // a cut with its reason (e.g. SLOW_CONSUMER): the loop reconnects
          pending.push(JSON.parse(m.data) as FeedEvent);
        },
        onRetry: (ms) => (delay = options.reconnectDelayMs ?? ms),
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
        while (pending.length) {
          const e = pending.shift()!;
          cursor = e.id;
          yield e;
        }
      }
    } catch (e) {
      if (options.signal?.aborted) return;
      if (e instanceof Error && e.name === 'AgentApiError') throw e;
      // A network failure: reconnect below with the cursor.
    } finally {
      options.signal?.removeEventListener('abort', stop);
      abort.abort();
    }
    await sleep(delay, options.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
