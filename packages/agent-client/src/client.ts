import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/openapi';
import { eventsPage, streamEvents, type EventFilter, type FeedEvent, type StreamOptions } from './events';
import { retryingFetch, type RetryOptions } from './retry';

export interface AgentClientOptions {
  /** The service origin, e.g. `http://localhost:3000` (a trailing `/api/agent` is accepted and dropped). */
  readonly baseUrl: string;
  /** `svc_ak_…`; can be set later with `setApiKey` (registerAgent does). */
  readonly apiKey?: string;
  readonly retry?: RetryOptions;
  /** Another fetch (proxies, tests); default the global one. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

export interface AgentClient {
  /** openapi-fetch over the generated `paths`: every route, parameter and body is typed from the OpenAPI document. */
  readonly api: Client<paths>;
  readonly baseUrl: string;
  apiKey(): string | undefined;
  setApiKey(key: string | undefined): void;
  /** The fetch every request goes through (429/503 retried). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** The event feed: `for await (const e of client.events.stream({ types: [...] }))` resumes by itself. */
  readonly events: {
    page(filter?: EventFilter & { limit?: number }): ReturnType<typeof eventsPage>;
    stream(filter?: EventFilter, options?: StreamOptions): AsyncGenerator<FeedEvent>;
  };
}

/** The generated paths carry the `/api/agent` prefix themselves, so the client's base is the bare origin. */
function origin(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/api\/agent$/, '');
}

/**
 * A typed client of the Agent API (https://openapi-ts.dev/openapi-fetch/): X-API-Key on every request once known,
 * 429/503 retried as Retry-After says. Use `unwrap(client.api.GET(...))` to get the body or an AgentApiError.
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  let key = options.apiKey;
  const base = origin(options.baseUrl);
  const inner = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const fetch = retryingFetch(inner, options.retry);
  const api = createClient<paths>({ baseUrl: base, fetch });
  api.use({
    onRequest({ request }) {
      if (key && !request.headers.has('x-api-key')) request.headers.set('x-api-key', key);
      return request;
    },
  });
  const client: AgentClient = {
    api,
    baseUrl: base,
    fetch,
    apiKey: () => key,
    setApiKey: (next) => {
      key = next;
    },
    events: {
      page: (filter) => eventsPage(client, filter),
      stream: (filter, streamOptions) => streamEvents(client, filter, streamOptions),
    },
  };
  return client;
}
