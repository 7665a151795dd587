export interface RetryOptions {
  /** Attempts after the first (default 3). 0 turns retries off. */
  readonly retries?: number;
  /** Longest single wait; a Retry-After beyond it is not waited out but surfaces as the error (default 60 s). */
  readonly maxWaitMs?: number;
  /** Wait before the first retry of a 503 that gives no Retry-After; doubled each time (default 500 ms). */
  readonly baseDelayMs?: number;
  /** For tests: how to wait. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const RETRIED = new Set([429, 503]);
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A fetch that retries 429 RATE_LIMIT_EXCEEDED and 503 NETWORK_UNAVAILABLE, waiting what Retry-After says.
 * Both are safe to resend for every route of this API: a 429 is refused by the request gate before any handler
 * runs, and submits are idempotent (the same signed envelope again answers the first outcome, marked
 * `Idempotent-Replayed: true`, and is never sent to the network twice). Other statuses are returned as they are.
 */
export function retryingFetch(inner: (request: Request) => Promise<Response>, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? defaultSleep;
  return async (request: Request) => {
    for (let attempt = 0; ; attempt++) {
      // A Request's body can be read once: every attempt sends a copy, the original stays unread for the next.
      const response = await inner(attempt < retries ? request.clone() : request);
      if (!RETRIED.has(response.status) || attempt >= retries) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? baseDelayMs * 2 ** attempt;
      if (wait > maxWaitMs) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
