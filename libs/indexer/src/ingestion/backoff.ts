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

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, capMs: 30_000, maxAttempts: 8 };

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

/** Rejects with a timeout error when fn takes longer than ms (an RPC call that hangs counts as a failure). */
export async function withTimeout<T>(fn: () => Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`RPC call timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
