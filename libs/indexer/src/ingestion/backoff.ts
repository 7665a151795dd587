/**
 * Retry with exponential backoff and full jitter (delay = random(0, min(cap, base·2^attempt)), per the AWS
 * "Exponential Backoff and Jitter" analysis) so several indexers do not hammer a recovering RPC in lockstep.
 */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly capMs: number;
  readonly maxAttempts: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
  /** Errors that must not be retried (e.g. retention errors: retrying cannot help). */
  readonly isFatal?: (err: unknown) => boolean;
  readonly onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/**
 * The cap bounds how long ingestion may sleep after the RPC is back: ≤ 10 s, so the indexer is live again within 15 s
 * of the chain's return (issue 31's bound, measured by `npm run test:faults`); full jitter keeps the mean at half.
 */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, capMs: 10_000, maxAttempts: 8 };

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sleeps `ms`, or less when `stop` aborts (a stopping indexer does not wait out its poll interval or backoff). */
export function sleepUnlessStopped(ms: number, stop: AbortSignal): Promise<void> {
  if (stop.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
  });
}

export function backoffDelay(attempt: number, o: Pick<BackoffOptions, 'baseMs' | 'capMs' | 'random'>): number {
  const ceiling = Math.min(o.capMs, o.baseMs * 2 ** attempt);
  return Math.floor((o.random ?? Math.random)() * ceiling);
}

export async function withBackoff<T>(fn: () => Promise<T>, o: BackoffOptions): Promise<T> {
  const sleep = o.sleep ?? realSleep;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      if (o.isFatal?.(error) || attempt + 1 >= o.maxAttempts) throw error;
      const delayMs = backoffDelay(attempt, o);
      o.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await sleep(delayMs);
    }
  }
}

export class RpcTimeoutError extends Error {
  override readonly name = 'RpcTimeoutError';
  constructor(readonly ms: number) {
    super(`RPC call timed out after ${ms} ms`);
  }
}

/**
 * Runs fn with a signal that aborts after `ms` (or when `stop` aborts): an RPC adapter that passes the signal to its
 * request abandons it — the connection closes instead of the request running on after we gave up. The caller gets
 * an RpcTimeoutError at the deadline even from an fn that ignores the signal.
 */
export async function withTimeout<T>(fn: (signal: AbortSignal) => Promise<T>, ms: number, stop?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new RpcTimeoutError(ms)), ms);
  const onStop = () => controller.abort(stop!.reason);
  if (stop?.aborted) onStop();
  else stop?.addEventListener('abort', onStop, { once: true });
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      fn(controller.signal),
      new Promise<never>((_, reject) => {
        onAbort = () => reject(controller.signal.reason);
        if (controller.signal.aborted) onAbort();
        else controller.signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', onStop);
    if (onAbort) controller.signal.removeEventListener('abort', onAbort);
  }
}
