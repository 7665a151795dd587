import { AppError } from '@dob/domain';

/** Runs `run` and expects it to fail within `ms` as SERVICE_UNAVAILABLE naming `dependency` (the API's 503 + Retry-After). */
export async function expectUnavailableWithin(ms: number, dependency: string, run: () => Promise<unknown>): Promise<AppError> {
  const started = Date.now();
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(Date.now() - started).toBeLessThan(ms);
  expect(error).toBeInstanceOf(AppError);
  expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, details: { dependency } });
  expect((error as AppError).retryAfterSeconds).toBeGreaterThan(0);
  return error as AppError;
}

/**
 * Expects `run` to answer again within `ms` once the dependency is back. A client told 503 + Retry-After retries, so
 * one refused attempt right after the restore is allowed: the driver's monitor may still be in its back-off (CI saw
 * the first read after a restore fail once). Retries every 200 ms; the last error is rethrown when time runs out.
 */
export async function expectAnswersAgainWithin<T>(ms: number, run: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await run();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
