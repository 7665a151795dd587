/**
 * Application errors in the product's vocabulary. Transport adapters map `code` to the HTTP status of docs/decisions.md#d7's
 * table; use cases never know about HTTP.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  TRANSACTION_EXPIRED: 400,
  UNAUTHORIZED: 401,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  /** An event-feed cursor older than the feed keeps (details.oldest_cursor says where to resume). */
  CURSOR_EXPIRED: 410,
  TRANSACTION_FAILED: 422,
  /** An Idempotency-Key sent again with another request (IETF draft-ietf-httpapi-idempotency-key-header). */
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  NETWORK_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
} as const;

/** Seconds a client is told to wait (Retry-After) when a server we depend on is away: about one reconnect attempt. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  override readonly name = 'AppError';
  /**
   * `retryAfter`: whole seconds before the client should try again — the one source of the Retry-After header
   * (the body's `details` may repeat it under the name the spec gives it: `retry_after`, `retry_after_seconds`).
   */
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    private readonly retryAfter?: number,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  static validation(message: string, details?: Record<string, unknown>): AppError {
    return new AppError('VALIDATION_ERROR', message, details);
  }

  static notFound(message: string): AppError {
    return new AppError('NOT_FOUND', message);
  }

  /**
   * A server this process depends on (PostgreSQL, MongoDB, …) cannot be reached: a 503 with Retry-After, raised by
   * the storage adapter that saw the connection fail, so no caller has to recognise driver errors.
   */
  static dependencyUnavailable(dependency: string, cause?: unknown): AppError {
    const error = new AppError('SERVICE_UNAVAILABLE', `${dependency} is unavailable; retry shortly`, { dependency });
    if (cause !== undefined) (error as { cause?: unknown }).cause = cause;
    return error;
  }

  /** Whole seconds for a Retry-After header: as raised, and on every 503 at least the dependency default. */
  get retryAfterSeconds(): number | undefined {
    return this.retryAfter ?? (this.status === 503 ? DEPENDENCY_RETRY_AFTER_SECONDS : undefined);
  }

  static conflict(message: string, details?: Record<string, unknown>, retryAfterSeconds?: number): AppError {
    return new AppError('CONFLICT', message, details, retryAfterSeconds);
  }
}
