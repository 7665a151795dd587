import { AppError, DEPENDENCY_RETRY_AFTER_SECONDS } from './app-error';

describe('AppError.retryAfterSeconds — the one source of the Retry-After header', () => {
  it('is what the error was raised with, whatever its status', () => {
    expect(AppError.conflict('still in flight', { retry_after_seconds: 3 }, 3).retryAfterSeconds).toBe(3);
    expect(new AppError('RATE_LIMIT_EXCEEDED', 'quota', { retry_after: 42 }, 42).retryAfterSeconds).toBe(42);
  });

  it('defaults on every 503 to about one reconnect attempt', () => {
    expect(AppError.dependencyUnavailable('postgresql').retryAfterSeconds).toBe(DEPENDENCY_RETRY_AFTER_SECONDS);
    expect(new AppError('NETWORK_UNAVAILABLE', 'rpc away').retryAfterSeconds).toBe(DEPENDENCY_RETRY_AFTER_SECONDS);
  });

  it('is absent otherwise — a body detail alone does not make a header', () => {
    expect(AppError.conflict('gone', { retry_after_seconds: 1 }).retryAfterSeconds).toBeUndefined();
    expect(AppError.validation('bad').retryAfterSeconds).toBeUndefined();
  });
});
