/**
 * The Agent API's error codes (the service's design brief, "Errors"); a newer server may send others, so the type
 * stays open. Every error response is the envelope `{ success: false, error: { code, message, details? } }`.
 */
export type KnownAgentErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'MISSING_API_KEY'
  | 'INVALID_API_KEY'
  | 'INSUFFICIENT_SCOPE'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'CURSOR_EXPIRED'
  | 'TRANSACTION_EXPIRED'
  | 'TRANSACTION_FAILED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'RATE_LIMIT_EXCEEDED'
  | 'NETWORK_UNAVAILABLE'
  | 'INTERNAL_ERROR';
export type AgentErrorCode = KnownAgentErrorCode | (string & {});

/** A refusal by the Agent API, carrying the envelope's code so callers branch on it rather than on text. */
export class AgentApiError extends Error {
  override readonly name = 'AgentApiError';
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
    /** Seconds the server asked to wait (Retry-After), when it did. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** `isAgentApiError(e, 'CONFLICT')` narrows `e` and checks its code in one step. */
  is(code: AgentErrorCode): boolean {
    return this.code === code;
  }
}

export function isAgentApiError(e: unknown, code?: AgentErrorCode): e is AgentApiError {
  return e instanceof AgentApiError && (code === undefined || e.code === code);
}

/** Builds the typed error from a non-2xx response body (the envelope, or anything else a proxy may answer). */
export function agentApiError(status: number, body: unknown, retryAfter: string | null): AgentApiError {
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (error && typeof error.code === 'string') {
    const message = typeof error.message === 'string' ? error.message : error.code;
    const details = error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : undefined;
    return new AgentApiError(error.code, message, status, details, seconds);
  }
  return new AgentApiError(
    status >= 500 ? 'INTERNAL_ERROR' : 'UNEXPECTED_RESPONSE',
    `HTTP ${status} without the API's error envelope`,
    status,
    undefined,
    seconds,
  );
}

/**
 * openapi-fetch answers `{ data, error, response }`; agents want the data or an exception. `unwrap` returns the
 * success body (typed by the generated `paths`) and throws AgentApiError for any non-2xx.
 */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw agentApiError(response.status, error ?? null, response.headers.get('retry-after'));
  return data as T;
}
